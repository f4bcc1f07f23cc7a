// Where bench/scale.ts's clients start: client i of a client process whose offset is `offset` starts on
// this node, so that each process spreads its clients over every node (scale.ts gives process p the
// offset p). Both the client processes and scale.ts, which counts a killed node's clients, use it.
export const startingNode = (offset: number, i: number, nodes: number): number => (offset + i) % nodes;
