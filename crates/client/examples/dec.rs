use std::time::Instant;
fn main() {
    for f in ["turn_resolved", "turn_started"] {
        let text = std::fs::read_to_string(format!("proto/examples/server/{f}.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let text = serde_json::to_string(&v).unwrap();
        let n = 50_000;
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(protocol::decode_server(&text).unwrap());
        }
        let a = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(client::codec::decode_frame(&text).unwrap());
        }
        let b = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(
                client::codec::decode_frame_with(&text, client::codec::Decode::Lite).unwrap(),
            );
        }
        let c = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!(
            "{f} ({} bytes): generic {a:.2} us, fast {b:.2} us, lite {c:.2} us",
            text.len()
        );
    }
}
