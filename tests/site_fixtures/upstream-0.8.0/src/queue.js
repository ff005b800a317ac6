// Messages waiting for the next turn.
export const queue = [];
