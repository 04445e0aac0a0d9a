export * from './client.js';
export * from './rest.js';
export * from './accounts.js';
export * from './dice.js';
export type * from './generated/server.js';
export type { ClientFrame } from './generated/client.js';
export type { Replay } from './generated/replay.js';
export type { paths, operations, components } from './generated/openapi.js';
export * from './generated/error-codes.js';
