//! The frame scenarios: criterion times whole burst cycles (120 frames
//! where there are bursts, else one frame) on a world that lives across
//! iterations, and reports the time per frame as throughput; then a timed
//! run of every frame prints total, p50, p99 and worst frame per backend.
//!
//! The legacy array runs up to 10^5 objects only (not `sparse-200k`).
//!
//! `cargo bench --bench frames` runs both; `-- frames/jelly-60k` only that
//! criterion group, `-- frame-times/jelly-60k` only that timed run.

use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};

use zorder_peers::bench_args::Parts;
use zorder_peers::scenario::{SEED, time_frames};
use zorder_peers::{Backend, FrameStats, Scenario, World};

fn runs<B: Backend>(scenario: &Scenario) -> bool {
    scenario.runs_on::<B>() && (!B::LINEAR_OPS || scenario.objects <= 100_000)
}

fn frames<B: Backend>(c: &mut Criterion, scenario: &Scenario) {
    if !runs::<B>(scenario) {
        return;
    }
    let mut world = World::<B>::new(scenario, SEED);
    let cycle = scenario.cycle;
    let mut group = c.benchmark_group(format!("frames/{}", scenario.name));
    group
        .throughput(Throughput::Elements(cycle as u64))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function(B::NAME, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters * cycle as u64 {
                world.frame();
            }
            std::hint::black_box(world.canvas);
            start.elapsed()
        });
    });
    group.finish();
}

/// Every frame of `demo_frames`, timed; printed as one line per backend.
fn frame_times<B: Backend>(scenario: &Scenario) {
    if !runs::<B>(scenario) {
        return;
    }
    let stats = FrameStats::of(&time_frames::<B>(scenario, |_, _| {}), scenario);
    let micros = |duration: Duration| duration.as_secs_f64() * 1e6;
    println!(
        "frame-times {:<15} {:<14} frames {:>5}  total {:>12.1} µs  p50 {:>10.1} µs  p99 {:>10.1} µs  max {:>10.1} µs (frame {:>4})  max of the other frames {:>10.1} µs",
        scenario.name,
        B::NAME,
        scenario.demo_frames,
        micros(stats.total),
        micros(stats.p50),
        micros(stats.p99),
        micros(stats.max),
        stats.worst,
        stats.max_quiet.map_or(f64::NAN, micros),
    );
}

fn all_scenarios(c: &mut Criterion) {
    for scenario in Scenario::all() {
        zorder_peers::for_each_backend!(frames(c, &scenario));
    }
    // The timed runs honour a filter the way criterion does, by substring
    // of "frame-times/<scenario>", and skip `--list` and `--test` runs.
    let Some(parts) = Parts::from_args() else {
        return;
    };
    for scenario in Scenario::all() {
        if parts.runs(&format!("frame-times/{}", scenario.name)) {
            zorder_peers::for_each_backend!(frame_times(&scenario));
        }
    }
}

criterion_group!(benches, all_scenarios);
criterion_main!(benches);
