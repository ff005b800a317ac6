// When a run may stop.
export function shouldStop(reply) {
  return reply.toolCalls.length === 0;
}
