// When a run may stop.
export function shouldStop(reply, queue) {
  if (queue.length > 0) {
    return false;
  }
  return reply.toolCalls.length === 0;
}
