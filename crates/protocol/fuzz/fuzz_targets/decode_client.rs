//! Fuzz target: `decode_client` is total. For any bytes it returns a frame or an
//! error coded `bad_json`, `unknown_type`, `too_large` (exactly for frames over
//! `MAX_FRAME_BYTES`) or `invalid_text` (a chat text the text policy refuses), and a
//! decoded frame re-encodes to itself.

#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::{decode_client, ErrorCode, MAX_FRAME_BYTES};

fuzz_target!(|data: &[u8]| {
    match decode_client(data) {
        Ok(frame) => {
            let again = serde_json::to_vec(&frame).expect("frames serialize");
            assert_eq!(decode_client(&again).as_ref(), Ok(&frame));
        }
        Err(e) => {
            assert!(matches!(
                e.code,
                ErrorCode::BadJson
                    | ErrorCode::UnknownType
                    | ErrorCode::TooLarge
                    | ErrorCode::InvalidText
                    | ErrorCode::InvalidEntropy
            ));
            assert_eq!(e.code == ErrorCode::TooLarge, data.len() > MAX_FRAME_BYTES);
        }
    }
});
