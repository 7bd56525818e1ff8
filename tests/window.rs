//! The real window under Xvfb: the binary is started as a child process (one winit event
//! loop per process), drives itself to a screenshot and exits.
//!
//! Needs `Xvfb` (and `xdotool` for the resize test). With `CI` set a missing tool fails
//! the test; without it the test says why it skips.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use stridescope::render::RgbaImage;

#[path = "common/xvfb.rs"]
mod xvfb;
use xvfb::{skip_or_fail, Xvfb};

/// A fresh folder for one test's files. Kept when the test fails (its screenshots show
/// why); each test removes it as it passes.
fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("stridescope-window-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn app(x: &Xvfb, config: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stridescope"));
    let runtime = config.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    cmd.args(args)
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", runtime)
        .env("STRIDESCOPE_CONFIG_DIR", config)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn wait_with_timeout(mut child: Child, limit: Duration) -> std::process::Output {
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "the app did not finish within {limit:?}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs the app with `args` (a scripted run that exits by itself), waits up to two minutes
/// and checks that it succeeded; returns its output.
fn run_scripted(x: &Xvfb, config: &Path, args: &[&str]) -> std::process::Output {
    let child = app(x, config, args).spawn().expect("start stridescope");
    let o = wait_with_timeout(child, Duration::from_secs(120));
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Pixels in the rectangle whose colour is within `tol` of `color`.
fn count_like(
    img: &RgbaImage,
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
    color: [u8; 3],
    tol: u8,
) -> usize {
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = img.pixel(x, y);
            (0..3).all(|c| p[c].abs_diff(color[c]) <= tol)
        })
        .count()
}

/// Fraction of pixels in the rectangle whose colour is within `tol` of `color`.
fn fraction_like(
    img: &RgbaImage,
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
    color: [u8; 3],
    tol: u8,
) -> f64 {
    let total = (x1.saturating_sub(x0) as u64 * y1.saturating_sub(y0) as u64).max(1);
    count_like(img, x0, y0, x1, y1, color, tol) as f64 / total as f64
}

#[test]
fn screenshot_shows_viewport_timeline_and_panels() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("shot");
    let out = dir.join("window.png");
    run_scripted(
        &x,
        &dir,
        &[
            "--screenshot",
            out.to_str().unwrap(),
            "--after-frames",
            "5",
            "--size",
            "960x600",
            "--clip",
            "Walk",
            "--play",
        ],
    );
    let img = RgbaImage::load_png(&out).unwrap();
    assert_eq!((img.width, img.height), (960, 600));
    // Not blank: many distinct colours.
    let mut colours: Vec<[u8; 4]> = img
        .pixels
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 200, "only {} colours", colours.len());
    // Side panels and the timeline: egui's dark panel fill dominates their areas.
    let panel = img.pixel(4, 300);
    let panel_rgb = [panel[0], panel[1], panel[2]];
    assert!(
        panel_rgb.iter().all(|&c| c < 60),
        "left panel is not a dark panel: {panel:?}"
    );
    assert!(
        fraction_like(&img, 0, 200, 8, 500, panel_rgb, 3) > 0.95,
        "left panel"
    );
    assert!(
        fraction_like(&img, 952, 250, 960, 500, panel_rgb, 3) > 0.9,
        "right panel"
    );
    // The viewport: the renderer's background gradient (lighter at the top) around a
    // clay-coloured character in the middle.
    let top = img.pixel(480, 40);
    let bottom = img.pixel(240, 470);
    assert!(
        top[0] > bottom[0] && top[1] > bottom[1],
        "no gradient: top {top:?} bottom {bottom:?}"
    );
    let clay = (150..450)
        .flat_map(|y| (380..580).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = img.pixel(x, y);
            p[0] > 120 && p[0] as i32 - p[2] as i32 > 40
        })
        .count();
    assert!(
        clay > 2000,
        "character not visible in the viewport ({clay} clay pixels)"
    );
    // The timeline's red playhead in the bottom band, and the root-motion plot's green
    // line in the right panel (Walk was playing).
    let count = |x0: u32, y0: u32, x1: u32, y1: u32, color: [u8; 3]| {
        count_like(&img, x0, y0, x1, y1, color, 30)
    };
    let playhead = count(0, 480, 960, 580, [240, 70, 70]);
    assert!(playhead > 30, "no playhead in the timeline ({playhead} px)");
    let plot = count(640, 100, 960, 500, [120, 200, 140]);
    assert!(
        plot > 20,
        "no displacement line in the root-motion plot ({plot} px)"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The pose-graph mode: the Blend panel's state-machine view shows the active state in
/// blue, the right panel plots the blended root speed, the character is drawn.
#[test]
fn screenshot_shows_the_state_machine_view_in_graph_mode() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("graph_shot");
    let out = dir.join("graph.png");
    run_scripted(
        &x,
        &dir,
        &[
            "--screenshot",
            out.to_str().unwrap(),
            "--after-frames",
            "12",
            "--size",
            "1280x860",
            "--graph",
            "--param",
            "speed=3",
            "--param",
            "wave=1",
            "--play",
        ],
    );
    let img = RgbaImage::load_png(&out).unwrap();
    assert_eq!((img.width, img.height), (1280, 860));
    let count = |x0: u32, y0: u32, x1: u32, y1: u32, color: [u8; 3], tol: u8| {
        count_like(&img, x0, y0, x1, y1, color, tol)
    };
    // The active state's box (filled and outlined in blue) in the left panel.
    let active = count(0, 200, 270, 560, [90, 170, 255], 40);
    assert!(
        active > 150,
        "no active state drawn in the state view ({active} px)"
    );
    // The speed plot's green line in the right panel.
    let plot = count(980, 100, 1280, 700, [120, 200, 140], 30);
    assert!(plot > 20, "no blended-speed line ({plot} px)");
    // The character in the viewport.
    let clay = (150..650)
        .flat_map(|y| (400..880).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = img.pixel(x, y);
            p[0] > 120 && p[0] as i32 - p[2] as i32 > 40
        })
        .count();
    assert!(clay > 2000, "character not visible ({clay} clay pixels)");
    let _ = std::fs::remove_dir_all(dir);
}

fn xdotool_available() -> bool {
    Command::new("xdotool")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn resizing_to_tiny_sizes_and_back_does_not_crash() {
    let Some(x) = Xvfb::start() else { return };
    if !xdotool_available() {
        skip_or_fail::<()>("xdotool is not installed");
        return;
    }
    let dir = temp_dir("resize");
    let mut child = app(&x, &dir, &["--play", "--size", "640x400"])
        .spawn()
        .expect("start stridescope");
    let xdo = |args: &[&str]| {
        Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &x.display)
            .output()
            .expect("xdotool")
    };
    // Find the window (its title is "stridescope").
    let deadline = Instant::now() + Duration::from_secs(60);
    let id = loop {
        let o = xdo(&["search", "--name", "^stridescope$"]);
        let text = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if let Some(first) = text.lines().next() {
            break first.to_string();
        }
        assert!(Instant::now() < deadline, "window never appeared");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the app exited before its window appeared"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    // Tiny, degenerate, large, then back, while a clip plays (continuous redraws).
    for (w, h) in [(1, 1), (30, 20), (5, 300), (1200, 700), (640, 400)] {
        let o = xdo(&["windowsize", "--sync", &id, &w.to_string(), &h.to_string()]);
        assert!(o.status.success(), "xdotool windowsize {w}x{h} failed");
        std::thread::sleep(Duration::from_millis(500));
        assert!(
            child.try_wait().unwrap().is_none(),
            "the app died after resizing to {w}x{h}"
        );
    }
    // Quit with the keyboard shortcut; the app saves its settings on the way out.
    xdo(&["windowfocus", "--sync", &id]);
    xdo(&["key", "ctrl+q"]);
    let o = wait_with_timeout(child, Duration::from_secs(60));
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    let (settings, note) = stridescope::app::settings::Settings::load(&dir.join("settings.json"));
    assert!(note.is_none());
    assert_eq!(
        settings.window_size,
        [640, 400],
        "restored size saved on exit"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// CPU time (user + system) a process has used, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read /proc/PID/stat");
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let after = &stat[stat.rfind(')').expect("stat format") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// A paused preview must not redraw continuously: over a few idle seconds the process
/// uses a small fraction of one core (a redraw loop on the software renderer would use
/// all of it).
#[test]
fn paused_window_sleeps() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("idle");
    let mut child = app(&x, &dir, &["--size", "640x400"])
        .spawn()
        .expect("start stridescope");
    // Let it open and settle (first frames, font upload, any fade-in).
    std::thread::sleep(Duration::from_secs(4));
    assert!(child.try_wait().unwrap().is_none(), "the app exited early");
    let ticks_per_sec = 100.0; // USER_HZ on Linux
    let before = cpu_ticks(child.id());
    let idle = Duration::from_secs(4);
    std::thread::sleep(idle);
    let used_secs = (cpu_ticks(child.id()) - before) as f64 / ticks_per_sec;
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(dir);
    assert!(
        used_secs < 0.25 * idle.as_secs_f64(),
        "paused window used {used_secs:.2} s of CPU in {idle:?}"
    );
}

/// Driving the demo walk at 1.5x its speed, 20 degrees to the left: the Locomotion panel
/// (its movement pad and the split plot), the overlay text block, the overlays in
/// Unreal's colours in the viewport and the foot-slide curve under the timeline.
#[test]
fn screenshot_shows_the_locomotion_panel_and_overlays() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("loco_shot");
    let out = dir.join("loco.png");
    run_scripted(
        &x,
        &dir,
        &[
            "--screenshot",
            out.to_str().unwrap(),
            "--after-frames",
            "20",
            "--size",
            "1400x900",
            "--clip",
            "Walk",
            "--movement-speed",
            "1.909",
            "--direction",
            "20",
            "--play",
        ],
    );
    let img = RgbaImage::load_png(&out).unwrap();
    assert_eq!((img.width, img.height), (1400, 900));
    let count = |x0: u32, y0: u32, x1: u32, y1: u32, color: [u8; 3], tol: u8| {
        count_like(&img, x0, y0, x1, y1, color, tol)
    };
    // Viewport (x 240..1100, y 30..670): the overlays' red IK origins, yellow scale
    // origins, green warped targets and the magenta orientation arc.
    for (name, c) in [
        ("IK origin red", [235, 50, 50]),
        ("scale origin yellow", [245, 215, 40]),
        ("warped green", [60, 220, 70]),
        ("orientation magenta", [230, 80, 230]),
    ] {
        let n = count(240, 30, 1100, 670, c, 25);
        assert!(n > 10, "{name}: {n} px in the viewport");
    }
    // The text block's dark box at the viewport's top left holds light text.
    let text = count(245, 30, 600, 140, [230, 230, 230], 20);
    assert!(text > 200, "overlay text block: {text} px");
    // The movement pad's orange dot and line in the right panel, and the split plot's
    // orange stride-scale line.
    let orange = count(1100, 100, 1400, 620, [255, 150, 40], 30);
    assert!(orange > 40, "pad / stride-scale line: {orange} px");
    // The foot-slide plot's points near the bottom: blue (left foot), orange (right foot),
    // the leg colours of the markers and contact lanes; the skate threshold is red.
    let left = count(0, 760, 1400, 870, [90, 170, 255], 30);
    let right = count(0, 760, 1400, 870, [255, 160, 60], 30);
    assert!(left > 30 && right > 30, "slide curves: {left} / {right} px");
    let _ = std::fs::remove_dir_all(dir);
}

/// Clip inspection in the window: `--select calf_l --onion 2` highlights the joint and
/// names it in the viewport, opens the curve view under the timeline, and draws ghost
/// skeletons (compared with the same shot without onion skin).
#[test]
fn screenshot_shows_onion_skin_and_the_curve_view() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("inspect_shot");
    let shoot = |name: &str, onion: &str| {
        let out = dir.join(name);
        run_scripted(
            &x,
            &dir,
            &[
                "--screenshot",
                out.to_str().unwrap(),
                "--after-frames",
                "5",
                "--size",
                "960x600",
                "--clip",
                "Walk",
                "--select",
                "calf_l",
                "--onion",
                onion,
            ],
        );
        RgbaImage::load_png(&out).unwrap()
    };
    let with = shoot("onion.png", "2");
    let without = shoot("plain.png", "0");
    let count =
        |img: &RgbaImage, x0: u32, y0: u32, x1: u32, y1: u32, f: &dyn Fn([u8; 4]) -> bool| {
            (y0..y1)
                .flat_map(|y| (x0..x1).map(move |x| (x, y)))
                .filter(|&(x, y)| f(img.pixel(x, y)))
                .count()
        };
    let near = |c: [u8; 3], tol: u8| move |p: [u8; 4]| (0..3).all(|i| p[i].abs_diff(c[i]) <= tol);
    // The curve view (bottom band, under the scrub bar): calf_l's red rx curve.
    let curve = count(&with, 40, 370, 830, 545, &near([235, 90, 80], 30));
    assert!(
        curve > 60,
        "no rotation curve in the curve view ({curve} px)"
    );
    // The selected joint: highlight and name label in the viewport.
    let highlight = count(&with, 240, 25, 635, 270, &near([90, 200, 255], 25));
    assert!(
        highlight > 20,
        "selected joint not highlighted ({highlight} px)"
    );
    // Ghosts: pale-blue bones and joints (the future) beyond what the plain shot has,
    // and orange ones (the past, issue 19, item 9: one colour for both before).
    let future = |p: [u8; 4]| p[2] > 150 && p[2] as i32 - p[0] as i32 > 40 && p[1] > 110;
    let g_with = count(&with, 240, 25, 635, 270, &future);
    let g_without = count(&without, 240, 25, 635, 270, &future);
    assert!(
        g_with > g_without + 60,
        "no future ghosts: {g_with} pale-blue px with onion skin, {g_without} without"
    );
    let past = |p: [u8; 4]| p[0] > 200 && p[0] as i32 - p[2] as i32 > 60 && p[1] > 120;
    let p_with = count(&with, 240, 25, 635, 270, &past);
    let p_without = count(&without, 240, 25, 635, 270, &past);
    assert!(
        p_with > p_without + 60,
        "no past ghosts: {p_with} orange px with onion skin, {p_without} without"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Mesh ghosts (issue 19, item 9): `--ghosts meshes` draws the onion-skin ghosts as
/// translucent bodies, past warm and future cool, covering far more of the viewport in
/// their tints than skeleton ghosts do.
#[test]
fn screenshot_shows_translucent_mesh_ghosts() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("mesh_ghosts");
    let shoot = |name: &str, onion: &str, style: &str| {
        let out = dir.join(name);
        run_scripted(
            &x,
            &dir,
            &[
                "--screenshot",
                out.to_str().unwrap(),
                "--after-frames",
                "5",
                "--size",
                "960x600",
                "--clip",
                "Walk",
                "--onion",
                onion,
                "--ghosts",
                style,
            ],
        );
        RgbaImage::load_png(&out).unwrap()
    };
    let plain = shoot("plain.png", "0", "meshes");
    let meshes = shoot("meshes.png", "2", "meshes");
    let skeletons = shoot("skeletons.png", "2", "skeletons");
    // Viewport pixels the ghosts changed, in a warm (past) or cool (future) tint.
    let count = |img: &RgbaImage, f: &dyn Fn([u8; 4]) -> bool| {
        (25..460u32)
            .flat_map(|y| (200..700u32).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let (p, q) = (img.pixel(x, y), plain.pixel(x, y));
                (0..3).any(|c| p[c].abs_diff(q[c]) > 12) && f(p)
            })
            .count()
    };
    let cool = |p: [u8; 4]| p[2] as i32 - p[0] as i32 > 20;
    let warm = |p: [u8; 4]| p[0] as i32 - p[2] as i32 > 20;
    let (c_mesh, c_skel) = (count(&meshes, &cool), count(&skeletons, &cool));
    let (w_mesh, w_skel) = (count(&meshes, &warm), count(&skeletons, &warm));
    assert!(
        c_mesh > 3 * c_skel.max(100),
        "future mesh ghosts: {c_mesh} cool px changed, skeleton ghosts {c_skel}"
    );
    assert!(
        w_mesh > 3 * w_skel.max(100),
        "past mesh ghosts: {w_mesh} warm px changed, skeleton ghosts {w_skel}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// File > Export preview, scripted with `--export`: one cycle of Run (0.7 s at its 30 fps
/// keys = 21 frames) at the viewport's size, as the viewport shows it.
#[test]
fn export_preview_writes_one_cycle_as_the_viewport_shows_it() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("export");
    let out = dir.join("run.gif");
    let o = run_scripted(
        &x,
        &dir,
        &[
            "--export",
            out.to_str().unwrap(),
            "--after-frames",
            "3",
            "--size",
            "960x600",
            "--clip",
            "Run",
        ],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("exported 21 frames"), "{stderr}");
    use image::AnimationDecoder;
    let frames = image::codecs::gif::GifDecoder::new(std::io::BufReader::new(
        std::fs::File::open(&out).unwrap(),
    ))
    .unwrap()
    .into_frames()
    .collect_frames()
    .unwrap();
    assert_eq!(frames.len(), 21);
    let (w, h) = frames[0].buffer().dimensions();
    // The viewport: narrower than the window (side panels), wider than a thumbnail.
    assert!(w > 200 && w < 960 && h > 150 && h < 600, "{w}x{h}");
    assert_ne!(frames[0].buffer().as_raw(), frames[10].buffer().as_raw());
    let _ = std::fs::remove_dir_all(dir);
}

/// Motion matching in the window: `--motion-matching --hold-keys w` drives the demo's
/// locomotion set for 150 frames; the viewport shows the cyan desired and orange matched
/// trajectories, and the timeline track the clips it played.
#[test]
fn screenshot_shows_motion_matching_driven_by_held_keys() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("mm_shot");
    let out = dir.join("mm.png");
    run_scripted(
        &x,
        &dir,
        &[
            "--screenshot",
            out.to_str().unwrap(),
            "--after-frames",
            "150",
            "--size",
            "1400x900",
            "--motion-matching",
            "--hold-keys",
            "w",
        ],
    );
    let img = RgbaImage::load_png(&out).unwrap();
    assert_eq!((img.width, img.height), (1400, 900));
    let count = |x0: u32, y0: u32, x1: u32, y1: u32, color: [u8; 3], tol: u8| {
        count_like(&img, x0, y0, x1, y1, color, tol)
    };
    // Viewport (x 240..960, y 30..790): the two trajectories and the red drift marker.
    let cyan = count(240, 30, 960, 790, [70, 220, 240], 30);
    let orange = count(240, 30, 960, 790, [255, 150, 40], 30);
    let red = count(240, 30, 960, 790, [240, 70, 70], 25);
    assert!(
        cyan > 30 && orange > 30 && red > 10,
        "cyan {cyan}, orange {orange}, red {red} px"
    );
    // The timeline track (y 830..860) is coloured by clip: several palette colours.
    let idle = count(0, 830, 1400, 860, [86, 180, 233], 10);
    let walk = count(0, 830, 1400, 860, [230, 159, 0], 10);
    assert!(idle > 100, "Idle segment: {idle} px");
    assert!(
        walk + count(0, 830, 1400, 860, [0, 158, 115], 10)
            + count(0, 830, 1400, 860, [204, 121, 167], 10)
            + count(0, 830, 1400, 860, [0, 114, 178], 10)
            > 300,
        "segments of the clips walked"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Opening a second file while the window runs (issue 19, item 2): dropping the Robot on
/// the Fox used to draw the Robot's pose with the Fox's GPU skin for one frame, and a red
/// "render: ... pose skin palette longer than the model's skin" replaced "opened ...".
/// Now the status says the file opened and no error is logged.
#[test]
fn opening_another_file_reports_no_false_error() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("drop");
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets");
    let (fox, robot) = (shared.join("Fox/Fox.glb"), shared.join("Robot/robot.glb"));
    let out = dir.join("after-drop.png");
    for (first, second) in [(&fox, &robot), (&robot, &fox)] {
        let o = run_scripted(
            &x,
            &dir,
            &[
                first.to_str().unwrap(),
                "--drop",
                second.to_str().unwrap(),
                "--screenshot",
                out.to_str().unwrap(),
                "--after-frames",
                "8",
                "--size",
                "1024x640",
                "--play",
            ],
        );
        let stderr = String::from_utf8_lossy(&o.stderr);
        let log: Vec<&str> = stderr
            .lines()
            .filter(|l| {
                l.starts_with("stridescope: status:") || l.starts_with("stridescope: error:")
            })
            .collect();
        assert_eq!(
            log,
            vec![format!("stridescope: status: opened {}", second.display()).as_str()],
            "{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The layout at 1400x860 and 1024x640 (issue 19, item 6) with everything that takes room
/// open (a selected joint's curve view, Drive's foot-slide plot, A/B compare side by side):
/// the viewport keeps at least half the window each way, and the frame readout is drawn
/// whole (its row is never cut by the window's edge).
#[test]
fn the_viewport_keeps_half_the_window_at_both_sizes() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("layout");
    let out = dir.join("layout.png");
    for (w, h) in [(1400u32, 860u32), (1024, 640)] {
        for extra in [
            &["--select", "spine_02", "--drive"][..],
            &["--select", "spine_02", "--compare", "Run", "--side-by-side"][..],
        ] {
            let size = format!("{w}x{h}");
            let mut args = vec![
                "--screenshot",
                out.to_str().unwrap(),
                "--after-frames",
                "4",
                "--size",
                &size,
                "--clip",
                "Walk",
            ];
            args.extend_from_slice(extra);
            let o = run_scripted(&x, &dir, &args);
            let stderr = String::from_utf8_lossy(&o.stderr);
            let line = stderr
                .lines()
                .find_map(|l| l.strip_prefix("stridescope: viewport "))
                .unwrap_or_else(|| panic!("no viewport size: {stderr}"));
            let (vw, vh) = line
                .trim_end_matches(" px")
                .split_once('x')
                .map(|(a, b)| (a.parse::<u32>().unwrap(), b.parse::<u32>().unwrap()))
                .unwrap();
            assert!(
                2 * vw >= w && 2 * vh >= h,
                "{size} {extra:?}: viewport {vw}x{vh}"
            );
            let img = RgbaImage::load_png(&out).unwrap();
            assert_eq!((img.width, img.height), (w, h));
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Motion matching on a mocap library in the window (issue 22): `CesiumMan.glb
/// --motion-matching --library DIR --mirror` retargets the takes onto CesiumMan before the
/// window opens, matches on them and their mirrors, and walks with W held: the character
/// is drawn (CesiumMan's white body fills part of the viewport) and the title names the
/// library.
#[test]
fn the_window_matches_on_a_retargeted_mocap_library() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("mm_library");
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let bandai = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mocap/bandai");
    for n in ["dataset-2_walk_normal_002", "dataset-2_walk_normal_004"] {
        std::fs::copy(
            bandai.join(format!("{n}.bvh")),
            lib.join(format!("{n}.bvh")),
        )
        .unwrap();
    }
    let cesium =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/CesiumMan/CesiumMan.glb");
    let out = dir.join("mm.png");
    let o = run_scripted(
        &x,
        &dir,
        &[
            cesium.to_str().unwrap(),
            "--motion-matching",
            "--library",
            lib.to_str().unwrap(),
            "--mirror",
            "--clip",
            "dataset-2_walk_normal_004 (mirrored)",
            "--hold-keys",
            "w",
            "--screenshot",
            out.to_str().unwrap(),
            "--after-frames",
            "60",
            "--size",
            "1000x640",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("motion matching on 4 clips from 2 library files (mirrored too)"),
        "{err}"
    );
    // The other start-up options apply to the library once it is on the character (a
    // mirrored take is one of its clips, not the file's).
    assert!(!err.contains("no clip named"), "{err}");
    // A library that cannot be read stops a scripted run with its reason.
    let missing = dir.join("no-such-library");
    let bad_png = dir.join("bad.png");
    let bad_args = [
        cesium.to_str().unwrap(),
        "--motion-matching",
        "--library",
        missing.to_str().unwrap(),
        "--screenshot",
        bad_png.to_str().unwrap(),
        "--after-frames",
        "5",
    ];
    let child = app(&x, &dir, &bad_args).spawn().expect("start stridescope");
    let bad = wait_with_timeout(child, Duration::from_secs(120));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success(), "{err}");
    assert!(
        err.contains("motion-matching library") && err.contains("no-such-library"),
        "{err}"
    );
    assert!(!bad_png.exists());
    let img = RgbaImage::load_png(&out).unwrap();
    // CesiumMan's white body in the viewport (between the side panels).
    let white = count_like(&img, 230, 30, 720, 540, [235, 235, 235], 25);
    assert!(
        white > 800,
        "{white} white px: the character is not in view"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// File > Retarget onto this character, scripted: a Bandai walk on the Quaternius robot,
/// the source beside it in magenta on the same timeline, the figures in the status bar.
#[test]
fn a_bandai_walk_plays_beside_the_robot_it_was_retargeted_onto() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("retarget_beside");
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let robot = shared.join("assets/Robot/robot.glb");
    let walk = shared.join("mocap/bandai/dataset-2_walk_normal_002.bvh");
    let out = dir.join("beside.png");
    let o = run_scripted(
        &x,
        &dir,
        &[
            robot.to_str().unwrap(),
            "--retarget-from",
            walk.to_str().unwrap(),
            "--play",
            "--screenshot",
            out.to_str().unwrap(),
            "--after-frames",
            "20",
            "--size",
            "1000x640",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("retargeted 1 clip(s) from"))
        .unwrap_or_else(|| panic!("no retarget summary in: {err}"));
    let agreement: f32 = line
        .rsplit("contact agreement from ")
        .next()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("no agreement in: {line}"));
    assert!(agreement > 0.8, "{line}");
    let img = RgbaImage::load_png(&out).unwrap();
    // The viewport between the side panels: the robot's orange body and, beside it, the
    // source's magenta skeleton (no mesh: a BVH take).
    let orange = count_like(&img, 180, 30, 800, 520, [240, 160, 50], 45);
    let magenta = count_like(&img, 180, 30, 800, 520, [230, 90, 230], 40);
    eprintln!("{orange} orange px, {magenta} magenta px");
    assert!(
        orange > 1500,
        "{orange} orange px: the robot is not in view"
    );
    assert!(
        magenta > 150,
        "{magenta} magenta px: the source is not beside it"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The library view (issue 23), scripted: a folder of four Bandai takes on the Robot,
/// `--library --library-view`: four robots in a 2x2 grid, all in view, labelled.
#[test]
fn the_library_view_shows_a_folder_of_takes_on_the_robot() {
    let Some(x) = Xvfb::start() else { return };
    let dir = temp_dir("library_view");
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let takes = dir.join("takes");
    std::fs::create_dir_all(&takes).unwrap();
    for take in [
        "dataset-2_walk_normal_002",
        "dataset-2_run_normal_001",
        "dataset-2_walk-turn-left_active_002",
        "dataset-2_run_elderly_002",
    ] {
        std::fs::copy(
            shared.join(format!("mocap/bandai/{take}.bvh")),
            takes.join(format!("{take}.bvh")),
        )
        .unwrap();
    }
    let robot = shared.join("assets/Robot/robot.glb");
    let out = dir.join("library.png");
    let o = run_scripted(
        &x,
        &dir,
        &[
            robot.to_str().unwrap(),
            "--library",
            takes.to_str().unwrap(),
            "--library-view",
            "--screenshot",
            out.to_str().unwrap(),
            "--after-frames",
            "20",
            "--size",
            "1000x640",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("library view: 4 clips"), "{err}");
    let img = RgbaImage::load_png(&out).unwrap();
    // The viewport between the side panels, split down the middle: robots in both
    // columns.
    let (x0, x1) = (180, 800);
    let mid = (x0 + x1) / 2;
    let left = count_like(&img, x0, 30, mid, 520, [240, 160, 50], 45);
    let right = count_like(&img, mid, 30, x1, 520, [240, 160, 50], 45);
    eprintln!("{left} orange px on the left, {right} on the right");
    assert!(left > 400 && right > 400, "{left} / {right} orange px");
    let _ = std::fs::remove_dir_all(dir);
}
