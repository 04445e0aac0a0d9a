//! Client frame decoding speed (issue 14: CPU per turn): the frame every turn of a
//! match brings, `submit_turn` as in `proto/examples/client/submit_turn.json` (one
//! line), and the keep-alive `{"t":"ping"}`, through [`protocol::decode_client`].
//! Throughput in frames per second (criterion "elem/s").
//! Run: `cargo bench -p protocol --bench decode -- --warm-up-time 1 --measurement-time 3`.

use criterion::{criterion_main, Criterion, Throughput};
use std::hint::black_box;

/// `decode_client/submit_turn` and `decode_client/ping`.
fn decode(c: &mut Criterion) {
    let example = include_str!("../../../proto/examples/client/submit_turn.json");
    let value: serde_json::Value = serde_json::from_str(example).unwrap();
    let submit = serde_json::to_vec(&value).unwrap();
    let ping = br#"{"t":"ping"}"#.to_vec();
    let mut g = c.benchmark_group("decode_client");
    g.throughput(Throughput::Elements(1));
    for (name, bytes) in [("submit_turn", &submit), ("ping", &ping)] {
        assert!(protocol::decode_client(bytes).is_ok(), "{name} decodes");
        g.bench_function(name, |b| {
            b.iter(|| protocol::decode_client(black_box(bytes)).unwrap())
        });
    }
    g.finish();
}

/// The benchmark group run by `criterion_main!`.
// `criterion_group!` defines an undocumented `pub fn benches`.
#[allow(missing_docs, unreachable_pub)]
mod group {
    criterion::criterion_group!(benches, super::decode);
}
criterion_main!(group::benches);
