//! The Jelly Jump frame-rate jitter, replayed on every backend.
//!
//! ```text
//! cargo run --release --example jelly_jump -- [--svg PATH] [--json PATH]
//! ```
//!
//! The article's game: 600 objects on 16 layers, two Z changes a frame, and
//! every 120 frames a new screen of 50 jellies, each created at the default
//! Z and then moved to its layer, while 50 others are destroyed. Every frame
//! draws back to front and hit-tests front to back. The same run at 100
//! times the size follows, then an isometric y-sort (every object at its
//! own fractional Z) and a particle system (bursts of short-lived objects
//! at distinct Z). Each backend replays exactly the same frames from the
//! same seed.
//!
//! It prints the total, median (p50), p99 and worst frame time per backend,
//! with ratios to `zorder`'s keyed `ZOrder`, and writes a chart of
//! every frame's time (log scale: the bursts are the spikes) to
//! `target/jelly_jump.svg`, or `--svg PATH`. `--json PATH` writes the same
//! results as JSON.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use plotters::prelude::*;

use zorder_peers::scenario::time_frames;
use zorder_peers::{Backend, FrameStats, Scenario, ZorderKeyed, ZorderSimple};

const USAGE: &str = "usage: jelly_jump [--svg PATH] [--json PATH]";

/// One backend's run of one scenario.
struct Run {
    backend: &'static str,
    frames: Vec<Duration>,
    stats: FrameStats,
}

/// One scenario's runs, zorder's keyed collection first.
struct Report {
    scenario: Scenario,
    runs: Vec<Run>,
}

struct Options {
    svg: PathBuf,
    json: Option<PathBuf>,
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("jelly_jump: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if cfg!(debug_assertions) {
        eprintln!("jelly_jump: a debug build; run with --release for meaningful times");
    }

    let started = Instant::now();
    let scenarios = [
        Scenario::jelly(1),
        Scenario::jelly(100),
        Scenario::ysort(),
        Scenario::particles(),
    ];
    let reports: Vec<Report> = scenarios
        .into_iter()
        .map(|scenario| {
            let mut runs = Vec::new();
            zorder_peers::for_each_backend!(run(&scenario, &mut runs));
            Report { scenario, runs }
        })
        .collect();
    eprintln!(
        "\rran every backend in {:.1} s{:40}",
        started.elapsed().as_secs_f64(),
        ""
    );

    for report in &reports {
        print_table(report);
    }
    println!(
        "* {} refuses the default Z, so it creates each object on its layer directly: \
         one Z-action per creation where the others do two.",
        ZorderSimple::NAME
    );

    let mut status = ExitCode::SUCCESS;
    match write_chart(&options.svg, &reports) {
        Ok(()) => println!("chart: {}", options.svg.display()),
        Err(error) => {
            eprintln!("jelly_jump: writing {}: {error}", options.svg.display());
            status = ExitCode::from(1);
        }
    }
    if let Some(path) = &options.json {
        match std::fs::write(path, to_json(&reports)) {
            Ok(()) => println!("json: {}", path.display()),
            Err(error) => {
                eprintln!("jelly_jump: writing {}: {error}", path.display());
                status = ExitCode::from(1);
            }
        }
    }
    status
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        svg: PathBuf::from("target/jelly_jump.svg"),
        json: None,
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a path"));
        match arg.as_str() {
            "--svg" => options.svg = value()?.into(),
            "--json" => options.json = Some(value()?.into()),
            "-h" | "--help" => return Ok(None),
            _ => return Err(format!("unknown argument {arg:?}")),
        }
    }
    Ok(Some(options))
}

/// Runs `scenario` on backend `B`, showing progress on standard error.
fn run<B: Backend>(scenario: &Scenario, runs: &mut Vec<Run>) {
    if !scenario.runs_on::<B>() {
        return;
    }
    let total = scenario.demo_frames;
    let replays = scenario.replays();
    let mut shown = Instant::now();
    eprint!(
        "\r{} on {}: building the world{:30}",
        scenario.name,
        B::NAME,
        ""
    );
    let frames = time_frames::<B>(scenario, |replay, done| {
        if done == total || shown.elapsed() > Duration::from_millis(100) {
            eprint!(
                "\r{} on {} (replay {replay}/{replays}): frame {done}/{total}{:30}",
                scenario.name,
                B::NAME,
                ""
            );
            let _ = std::io::stderr().flush();
            shown = Instant::now();
        }
    });
    runs.push(Run {
        backend: B::NAME,
        stats: FrameStats::of(&frames, scenario),
        frames,
    });
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn print_table(report: &Report) {
    let scenario = &report.scenario;
    let reference = &report.runs[0].stats;
    println!(
        "\n{}: {}, {} frames{}",
        scenario.name,
        describe(scenario),
        scenario.demo_frames,
        match scenario.replays() {
            1 => String::new(),
            n => format!("; each frame the fastest of {n} replays"),
        }
    );
    println!(
        "{:<16} {:>11} {:>10} {:>10} {:>11} {:>11}   {:>7} {:>7} {:>7}",
        "backend", "total ms", "p50 µs", "p99 µs", "max µs", "max' µs", "total×", "p99×", "max×"
    );
    for run in &report.runs {
        let stats = &run.stats;
        let ratio = |of: Duration, to: Duration| of.as_secs_f64() / to.as_secs_f64();
        let star = if run.backend == ZorderSimple::NAME {
            "*"
        } else {
            ""
        };
        println!(
            "{:<16} {:>11.2} {:>10.1} {:>10.1} {:>11.1} {:>11.1}   {:>7.2} {:>7.2} {:>7.2}",
            format!("{}{star}", run.backend),
            stats.total.as_secs_f64() * 1e3,
            micros(stats.p50),
            micros(stats.p99),
            micros(stats.max),
            stats.max_quiet.map_or(f64::NAN, micros),
            ratio(stats.total, reference.total),
            ratio(stats.p99, reference.p99),
            ratio(stats.max, reference.max),
        );
    }
    println!(
        "(ratios are to {}; above 1 means slower; max' is the worst frame that creates or destroys nothing in bulk)",
        ZorderKeyed::NAME
    );
}

/// What a scenario does, in a few words.
fn describe(scenario: &Scenario) -> String {
    let mut parts = vec![format!("{} objects", scenario.objects)];
    if let Some(burst) = scenario.burst {
        parts.push(format!(
            "a burst of {} creations and removals every {} frames",
            burst.size, burst.every
        ));
    }
    if let Some(particles) = &scenario.particles {
        parts.push(format!(
            "{} particles every {} frames, living {} frames",
            particles.size, particles.every, particles.lifetime
        ));
    }
    if scenario.changes_per_frame > 0 {
        parts.push(format!("{} Z changes a frame", scenario.changes_per_frame));
    }
    parts.join(", ")
}

const COLORS: [RGBColor; 7] = [
    RGBColor(0, 0, 0),
    RGBColor(0, 114, 178),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
];

/// One panel per scenario: frame time against frame index, log scale.
fn write_chart(path: &Path, reports: &[Report]) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let root = SVGBackend::new(path, (1200, 450 * reports.len() as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((reports.len(), 1));
    for (panel, report) in panels.iter().zip(reports) {
        let times = report.runs.iter().flat_map(|run| run.frames.iter());
        let (low, high) = times.fold((f64::MAX, 0f64), |(low, high), &frame| {
            (low.min(micros(frame)), high.max(micros(frame)))
        });
        let frames = report.scenario.demo_frames;
        let mut chart = ChartBuilder::on(panel)
            .caption(
                format!(
                    "{}: frame time per frame ({})",
                    report.scenario.name,
                    describe(&report.scenario)
                ),
                ("sans-serif", 24),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0..frames, (low.max(0.01) * 0.8..high * 1.25).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("frame")
            .y_desc("frame time (µs, log scale)")
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 16))
            .y_label_formatter(&|micros| format!("{micros:.0}"))
            // Log-scale light lines crowd into a grey band near each power
            // of ten; one between labels is enough.
            .max_light_lines(1)
            .draw()?;
        for (run, color) in report.runs.iter().zip(COLORS) {
            chart
                .draw_series(LineSeries::new(
                    run.frames
                        .iter()
                        .enumerate()
                        .map(|(i, &frame)| (i, micros(frame))),
                    color.stroke_width(1),
                ))?
                .label(run.backend)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font(("sans-serif", 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

/// The results as JSON.
fn to_json(reports: &[Report]) -> String {
    let scenarios: Vec<serde_json::Value> = reports
        .iter()
        .map(|report| {
            let backends: Vec<serde_json::Value> = report
                .runs
                .iter()
                .map(|run| {
                    let stats = &run.stats;
                    serde_json::json!({
                        "name": run.backend,
                        "total_us": micros(stats.total),
                        "p50_us": micros(stats.p50),
                        "p99_us": micros(stats.p99),
                        "max_us": micros(stats.max),
                        "worst_frame": stats.worst,
                        "max_quiet_us": stats.max_quiet.map(micros),
                        "frame_us": run.frames.iter().map(|&frame| micros(frame)).collect::<Vec<_>>(),
                    })
                })
                .collect();
            serde_json::json!({
                "name": report.scenario.name,
                "description": describe(&report.scenario),
                "objects": report.scenario.objects,
                "frames": report.scenario.demo_frames,
                "backends": backends,
            })
        })
        .collect();
    let json = serde_json::json!({ "reference": ZorderKeyed::NAME, "scenarios": scenarios });
    serde_json::to_string_pretty(&json).expect("plain values") + "\n"
}
