// @ludo/sdk: typed client of the Royal Ludo game server (proto/README.md, protocol 3).
export * from './client.js';
export * from './rest.js';
export * from './accounts.js';
export * from './dice.js';
export * from './generated/error-codes.js';
