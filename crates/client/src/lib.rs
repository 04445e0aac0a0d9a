//! WebSocket client library (built on the `protocol` crate), the `ludo-bots` demo and the `ludo-load` load generator; also `verify-replay`.
