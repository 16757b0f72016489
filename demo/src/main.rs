//! The Jelly Jump frame-rate jitter, replayed on `zorder` and on every
//! structure a game would use instead.
//!
//! ```text
//! cargo run --release -p zorder-demo -- [--svg PATH] [--json PATH]
//! ```
//!
//! It runs every frame scenario of `Scenario::all()`: the article's game
//! (600 objects on 16 layers, two Z changes a frame, and every 120 frames a
//! new screen of 50 jellies, each created at the default Z and then moved
//! to its layer, while 50 others are destroyed), the same at 100 times the
//! size, 200,000 objects with 2,000 changes a frame, the big game on
//! fractional and negative layers, 20,000 objects all moving every frame,
//! an isometric y-sort (every object at its own fractional Z) and a
//! particle system (bursts of short-lived objects at distinct Z). Every
//! frame draws back to front and hit-tests front to back, and each backend
//! replays exactly the same frames from the same seed: five times, taken in
//! turn across the backends, each frame's time its fastest replay, so that
//! a slow spell of a shared machine falls on every backend alike (a backend
//! whose first run takes over half a second runs once). The legacy sorted
//! array, whose every operation is O(n), skips the worlds of more than
//! 10^5 objects, as the benchmarks do.
//!
//! It prints one summary table first: per scenario, `zorder`'s keyed
//! `ZOrder` against the best peer (the best of the backends that are not
//! `zorder`, named), in total time and in worst frame, fed both ways: one
//! call a change, and each frame's changes as one batch (`apply`). Then
//! one table per scenario: total, median (p50), p99 and worst frame time
//! per backend, with ratios to the keyed `ZOrder`. It writes a chart of
//! every frame's time (one panel per scenario, log scale: the bursts are
//! the spikes; zorder's backends in thick lines, the peers in thin ones,
//! each backend in the same colour in every panel) to `jelly_jump.svg` in
//! cargo's target directory, or `--svg PATH`; `--json PATH` writes the
//! same results as JSON.
//!
//! Progress goes to standard error: one line redrawn in place on a
//! terminal, one plain line per scenario and backend otherwise.

use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use plotters::prelude::*;

use zorder_peers::scenario::{REPLAY_BUDGET, REPLAYS, keep_fastest, replays_after, run_frames};
use zorder_peers::{Backend, FrameStats, Scenario, ZorderBatch, ZorderKeyed, ZorderSimple};

const USAGE: &str = "usage: jelly_jump [--svg PATH] [--json PATH]";

/// The largest world the backends with O(n) operations run, as in the
/// benchmarks.
const LINEAR_LIMIT: usize = 100_000;

/// One backend's run of one scenario: each frame's fastest replay.
struct Run {
    backend: &'static str,
    frames: Vec<Duration>,
    stats: FrameStats,
    /// Replays to make in all, and made so far.
    replays: usize,
    made: usize,
    /// Time taken by the replays made, the building of their worlds
    /// included.
    took: Duration,
}

/// One scenario's runs, in `for_each_backend!` order (zorder's keyed
/// collection first).
struct Report {
    scenario: Scenario,
    runs: Vec<Run>,
}

impl Report {
    /// The run of the backend named `name`, if it ran.
    fn run(&self, name: &str) -> Option<&Run> {
        self.runs.iter().find(|run| run.backend == name)
    }

    /// The run of the keyed `ZOrder`, the reference of every ratio.
    fn reference(&self) -> &Run {
        self.run(ZorderKeyed::NAME)
            .expect("the keyed collection runs every scenario")
    }

    /// The peer (a backend that is not zorder) with the least `measure`.
    fn best_peer(&self, measure: impl Fn(&FrameStats) -> Duration) -> Option<&Run> {
        self.runs
            .iter()
            .filter(|run| !is_zorder(run.backend))
            .min_by_key(|run| measure(&run.stats))
    }
}

/// Whether a backend is one of `zorder`'s collections (their names say
/// so) rather than a peer.
fn is_zorder(backend: &str) -> bool {
    backend.starts_with("zorder-")
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
    let mut progress = Progress::new();
    let reports: Vec<Report> = Scenario::all()
        .into_iter()
        .map(|scenario| {
            let mut runs = Vec::new();
            zorder_peers::for_each_backend!(run(&scenario, &mut runs, &mut progress));
            // The replays in turn across backends, so that a slow spell of
            // the machine falls on all of them alike.
            for _ in 1..REPLAYS {
                zorder_peers::for_each_backend!(run(&scenario, &mut runs, &mut progress));
            }
            for run in &runs {
                progress.finished(&scenario, run);
            }
            Report { scenario, runs }
        })
        .collect();
    progress.done(started.elapsed());

    print_summary(&reports);
    for report in &reports {
        print_table(report);
    }
    println!(
        "\n* {} refuses the default Z, so it creates each object on its layer directly: \
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
    let mut svg = None;
    let mut json = None;
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a path"));
        match arg.as_str() {
            "--svg" => svg = Some(value()?.into()),
            "--json" => json = Some(value()?.into()),
            "-h" | "--help" => return Ok(None),
            _ => return Err(format!("unknown argument {arg:?}")),
        }
    }
    Ok(Some(Options {
        svg: svg.unwrap_or_else(|| target_dir().join("jelly_jump.svg")),
        json,
    }))
}

/// Cargo's target directory, where the chart goes by default.
///
/// The binary cannot ask its environment: cargo does not tell a program
/// it runs where its target directory is (`CARGO_TARGET_DIR` is there only
/// when the user exported it; a `build.target-dir` in a config file or
/// `--target-dir` on the command line never shows). So the binary looks
/// at its own path: cargo builds it somewhere under the target directory
/// (`<target>/release/jelly_jump`, `<target>/<triple>/<profile>/...`) and
/// tags that directory's root with a `CACHEDIR.TAG` file that says it was
/// created by cargo; the nearest such ancestor is the target directory. A
/// binary copied out of any target directory falls back to
/// `CARGO_TARGET_DIR`, then to `target` under the working directory.
fn target_dir() -> PathBuf {
    let made_by_cargo = |dir: &Path| {
        std::fs::read_to_string(dir.join("CACHEDIR.TAG"))
            .is_ok_and(|tag| tag.contains("created by cargo"))
    };
    let exe = std::env::current_exe().and_then(|exe| exe.canonicalize());
    if let Some(dir) = exe
        .as_deref()
        .ok()
        .and_then(|exe| exe.ancestors().skip(1).find(|dir| made_by_cargo(dir)))
    {
        return dir.to_path_buf();
    }
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from)
}

/// Progress on standard error: a line redrawn in place on a terminal, or
/// a plain line per finished run when standard error is a pipe or a file.
struct Progress {
    terminal: bool,
    shown: Instant,
}

impl Progress {
    fn new() -> Self {
        Progress {
            terminal: std::io::stderr().is_terminal(),
            shown: Instant::now(),
        }
    }

    /// Redraws the line, at most every 100 ms unless `now`.
    fn redraw(&mut self, line: std::fmt::Arguments<'_>, now: bool) {
        if self.terminal && (now || self.shown.elapsed() > Duration::from_millis(100)) {
            // Clear to the end of the line after the text.
            eprint!("\r{line}\x1b[K");
            let _ = std::io::stderr().flush();
            self.shown = Instant::now();
        }
    }

    /// A backend's replays of a scenario finished: a plain line when not
    /// on a terminal.
    fn finished(&mut self, scenario: &Scenario, run: &Run) {
        if !self.terminal {
            eprintln!(
                "{} on {}: {} frames x {} in {:.2} s",
                scenario.name,
                run.backend,
                scenario.demo_frames,
                replays(run.replays),
                run.took.as_secs_f64()
            );
        }
    }

    fn done(&mut self, took: Duration) {
        if self.terminal {
            eprint!("\r\x1b[K");
        }
        eprintln!("ran every backend in {:.1} s", took.as_secs_f64());
    }
}

fn replays(replays: usize) -> String {
    match replays {
        1 => "1 run".to_owned(),
        n => format!("{n} replays"),
    }
}

/// Runs `scenario` once more on backend `B`, if it takes the scenario's Z
/// values, its operations are not O(n) on a world over [`LINEAR_LIMIT`],
/// and it has replays left (its first run sets how many: see
/// [`replays_after`]); each frame keeps its fastest time.
fn run<B: Backend>(scenario: &Scenario, runs: &mut Vec<Run>, progress: &mut Progress) {
    if !scenario.runs_on::<B>() || B::LINEAR_OPS && scenario.objects > LINEAR_LIMIT {
        return;
    }
    let at = runs.iter().position(|run| run.backend == B::NAME);
    let replay = match at {
        Some(at) if runs[at].made == runs[at].replays => return,
        Some(at) => format!("replay {}/{}", runs[at].made + 1, runs[at].replays),
        None => "first run".to_owned(),
    };
    let (name, total) = (scenario.name, scenario.demo_frames);
    let started = Instant::now();
    progress.redraw(
        format_args!("{name} on {}: building the world", B::NAME),
        true,
    );
    let frames = run_frames::<B>(scenario, |done| {
        progress.redraw(
            format_args!("{name} on {} ({replay}): frame {done}/{total}", B::NAME),
            done == total,
        );
    });
    let took = started.elapsed();
    match at {
        Some(at) => {
            let run = &mut runs[at];
            keep_fastest(&mut run.frames, &frames);
            run.stats = FrameStats::of(&run.frames, scenario);
            run.made += 1;
            run.took += took;
        }
        None => runs.push(Run {
            backend: B::NAME,
            stats: FrameStats::of(&frames, scenario),
            frames,
            replays: replays_after(took),
            made: 1,
            took,
        }),
    }
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn ratio(of: Duration, to: Duration) -> f64 {
    of.as_secs_f64() / to.as_secs_f64()
}

/// A duration in the unit that suits it.
fn human(duration: Duration) -> String {
    let micros = micros(duration);
    if micros >= 10_000.0 {
        format!("{:.1} ms", micros / 1e3)
    } else if micros >= 1_000.0 {
        format!("{:.2} ms", micros / 1e3)
    } else {
        format!("{micros:.1} µs")
    }
}

/// The table that leads: per scenario, the best peer's total, the keyed
/// `ZOrder`'s fed both ways (one call a change, and the frame's changes
/// as one batch) against it, and the worst frames the same way.
fn print_summary(reports: &[Report]) {
    println!(
        "{} against the best peer (the best backend that is not zorder, named), per scenario,\n\
         fed one call a change and as one batch a frame ({}); a ratio below 1 means zorder is faster",
        ZorderKeyed::NAME,
        ZorderBatch::NAME,
    );
    println!(
        "\n{:<15} {:>7}  {:>24}  {:>17}  {:>17}  {:>24}  {:>17}  {:>17}",
        "scenario",
        "objects",
        "best peer's total",
        "one call a change",
        "a batch a frame",
        "best peer's worst",
        "one call a change",
        "a batch a frame",
    );
    for report in reports {
        let total = |stats: &FrameStats| stats.total;
        let worst = |stats: &FrameStats| stats.max;
        let mut line = format!(
            "{:<15} {:>7}",
            report.scenario.name, report.scenario.objects
        );
        for measure in [total, worst] {
            let Some(peer) = report.best_peer(measure) else {
                line += &format!("  {:>24}  {:>17}  {:>17}", "–", "–", "–");
                continue;
            };
            let best = measure(&peer.stats);
            line += &format!("  {:>24}", format!("{} {}", peer.backend, human(best)));
            for name in [ZorderKeyed::NAME, ZorderBatch::NAME] {
                line += &match report.run(name) {
                    Some(run) => {
                        let value = measure(&run.stats);
                        format!("  {:>10} {:>6.2}", human(value), ratio(value, best))
                    }
                    None => format!("  {:>17}", "–"),
                };
            }
        }
        println!("{line}");
    }
}

/// How a scenario's frames were timed, for its table's heading.
fn replayed(runs: &[Run]) -> String {
    let once: Vec<&str> = runs
        .iter()
        .filter(|run| run.replays == 1)
        .map(|run| run.backend)
        .collect();
    let mut text =
        format!("; each frame the fastest of {REPLAYS} replays, taken in turn across backends");
    if !once.is_empty() {
        text += &format!(
            " ({} once: a first run over {} ms)",
            once.join(", "),
            REPLAY_BUDGET.as_millis()
        );
    }
    text
}

fn print_table(report: &Report) {
    let scenario = &report.scenario;
    let reference = &report.reference().stats;
    println!(
        "\n{}: {}, {} frames{}",
        scenario.name,
        describe(scenario),
        scenario.demo_frames,
        replayed(&report.runs)
    );
    println!(
        "{:<16} {:>11} {:>10} {:>10} {:>11} {:>11}   {:>7} {:>7} {:>7}",
        "backend", "total ms", "p50 µs", "p99 µs", "max µs", "max' µs", "total×", "p99×", "max×"
    );
    for run in &report.runs {
        let stats = &run.stats;
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
    if scenario.all_move {
        parts.push("every object moves every frame".to_owned());
    }
    parts.join(", ")
}

/// Every backend's name, in `for_each_backend!` order: a backend's colour
/// is the one at its place here, in every panel.
fn backend_names() -> Vec<&'static str> {
    fn push<B: Backend>(names: &mut Vec<&'static str>) {
        names.push(B::NAME);
    }
    let mut names = Vec::new();
    zorder_peers::for_each_backend!(push(&mut names));
    names
}

/// Colours told apart by colour-blind readers too (Okabe and Ito's eight,
/// and a purple); zorder's three first.
const COLORS: [RGBColor; 9] = [
    RGBColor(0, 0, 0),
    RGBColor(0, 114, 178),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(117, 112, 179),
    RGBColor(140, 86, 75),
];

/// A backend's line: its colour, thick for zorder's collections and thin
/// for the peers.
fn line_style(names: &[&str], backend: &str) -> ShapeStyle {
    let at = names.iter().position(|name| *name == backend).unwrap_or(0);
    let width = if is_zorder(backend) { 3 } else { 1 };
    COLORS[at % COLORS.len()].stroke_width(width)
}

const WIDTH: u32 = 1200;
const PANEL_HEIGHT: u32 = 420;
const HEADER_HEIGHT: u32 = 90;

/// A font size at which `text` fits in `width` pixels, at most `largest`
/// (a sans-serif character is taken as 0.55 em wide, a little more than
/// the average, since an SVG's fonts are the viewer's).
fn fitting_size(text: &str, width: u32, largest: f64) -> f64 {
    let chars = text.chars().count().max(1) as f64;
    (f64::from(width) / (0.55 * chars)).min(largest)
}

/// The header (title and the one legend), then one panel per scenario:
/// frame time against frame index, log scale.
fn write_chart(path: &Path, reports: &[Report]) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let height = HEADER_HEIGHT + PANEL_HEIGHT * reports.len() as u32;
    let root = SVGBackend::new(path, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (header, panels) = root.split_vertically(HEADER_HEIGHT);
    let names = backend_names();
    draw_header(&header, &names)?;
    let panels = panels.split_evenly((reports.len(), 1));
    for (panel, report) in panels.iter().zip(reports) {
        draw_panel(panel, report, &names)?;
    }
    root.present()?;
    Ok(())
}

/// The chart's title, and a legend of every backend, zorder's first.
fn draw_header<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    names: &[&'static str],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let title =
        "Jelly Jump: each frame's time, per scenario and backend (zorder thick, peers thin)";
    let size = fitting_size(title, WIDTH - 40, 24.0);
    area.draw(&Text::new(title, (20, 10), ("sans-serif", size)))?;
    let columns = 5;
    let column_width = (WIDTH as i32 - 40) / columns;
    for (at, name) in names.iter().enumerate() {
        let x = 20 + (at as i32 % columns) * column_width;
        let y = 50 + (at as i32 / columns) * 22;
        area.draw(&PathElement::new(
            vec![(x, y), (x + 36, y)],
            line_style(names, name),
        ))?;
        area.draw(&Text::new(*name, (x + 44, y - 8), ("sans-serif", 16)))?;
    }
    Ok(())
}

/// The decades that cover `low..=high` (both positive): the exponents of
/// the powers of ten at and around them.
fn decades(low: f64, high: f64) -> (i32, i32) {
    let bottom = low.log10().floor() as i32;
    let top = (high.log10().ceil() as i32).max(bottom + 1);
    (bottom, top)
}

/// A tick label: a power of ten, with as many decimals as it needs.
fn decade_label(value: f64) -> String {
    let exponent = value.log10().round() as i32;
    format!("{value:.0$}", usize::try_from(-exponent).unwrap_or(0))
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    report: &Report,
    names: &[&'static str],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let times = report.runs.iter().flat_map(|run| run.frames.iter());
    let (low, high) = times.fold((f64::MAX, 0f64), |(low, high), &frame| {
        (low.min(micros(frame)), high.max(micros(frame)))
    });
    // Frames too fast for the clock read 0: the axis starts at 0.01 µs.
    let (bottom, top) = decades(low.max(0.01), high.max(0.02));
    let power = |exponent: i32| 10f64.powi(exponent);
    let labelled: Vec<f64> = (bottom..=top).map(power).collect();
    let light: Vec<f64> = (bottom..top)
        .flat_map(|exponent| [2.0, 5.0].map(|step| step * power(exponent)))
        .collect();
    let frames = report.scenario.demo_frames;
    let caption = format!("{}: {}", report.scenario.name, describe(&report.scenario));
    let size = fitting_size(&caption, WIDTH - 20, 20.0);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", size))
        .margin(10)
        // Room for the last frame's tick label, centred on the right edge.
        .margin_right(30)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(
            0..frames,
            (power(bottom)..power(top))
                .log_scale()
                .with_key_points(labelled)
                .with_light_points(light),
        )?;
    chart
        .configure_mesh()
        .x_desc("frame")
        .y_desc("frame time (µs, log scale)")
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .y_label_formatter(&|value| decade_label(*value))
        .draw()?;
    // The peers first, so zorder's thick lines are drawn over them.
    let mut runs: Vec<&Run> = report.runs.iter().collect();
    runs.sort_by_key(|run| is_zorder(run.backend));
    for run in runs {
        chart.draw_series(LineSeries::new(
            run.frames
                .iter()
                .enumerate()
                .map(|(i, &frame)| (i, micros(frame).max(power(bottom)))),
            line_style(names, run.backend),
        ))?;
    }
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
                        "zorder": is_zorder(run.backend),
                        "replays": run.replays,
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
            let best = |measure: fn(&FrameStats) -> Duration| {
                report.best_peer(measure).map(|run| run.backend)
            };
            serde_json::json!({
                "name": report.scenario.name,
                "description": describe(&report.scenario),
                "objects": report.scenario.objects,
                "frames": report.scenario.demo_frames,
                "best_peer_by_total": best(|stats| stats.total),
                "best_peer_by_max": best(|stats| stats.max),
                "backends": backends,
            })
        })
        .collect();
    let json = serde_json::json!({ "reference": ZorderKeyed::NAME, "scenarios": scenarios });
    serde_json::to_string_pretty(&json).expect("plain values") + "\n"
}
