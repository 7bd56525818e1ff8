//! Memory soak tests (issue 17): every mode that animates runs for 30 and for 300 frames,
//! as `render --frames` and as a scripted window under Xvfb, and the 300-frame run's peak
//! resident memory must stay within 10% or 20 MB (whichever is larger) of the 30-frame
//! run's. Before the fix the window grew by 2-6 MB a frame (lavapipe kept a shader variant
//! per mesh draw) and `render` kept every pose and image, so these failed by hundreds of
//! MB. Memory is the child's own peak (`ru_maxrss` from `wait4`), never a timing.
//!
//! Small sizes (320x240 images, a 640x400 window) keep them under a couple of minutes.

#[path = "common/soak_modes.rs"]
mod soak_modes;
#[path = "common/xvfb.rs"]
mod xvfb;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROBOT: &str = "../shared/assets/Robot/robot.glb";

/// Growth allowed from 30 to 300 frames: 10% of the 30-frame peak or 20 MB, the larger.
fn allowed_growth_kb(peak_30_kb: u64) -> u64 {
    (peak_30_kb / 10).max(20 * 1024)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stridescope-soak-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `cmd` to completion (at most `limit`) and returns its peak resident set in KiB,
/// read from the kernel's accounting of that one child.
// The child is reaped with `wait4` (which `Child::wait` cannot do: it drops the rusage).
#[allow(clippy::zombie_processes)]
fn peak_rss_kb(mut cmd: Command, limit: Duration) -> u64 {
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start stridescope");
    let pid = child.id() as libc::pid_t;
    // stderr is drained on a thread so a chatty child never blocks on a full pipe.
    let mut stderr = child.stderr.expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let deadline = Instant::now() + limit;
    loop {
        let mut status = 0;
        // SAFETY: plain FFI calls with valid pointers to locals.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(r >= 0, "wait4 failed: {}", std::io::Error::last_os_error());
        if r == pid {
            let err = reader.join().unwrap_or_default();
            assert!(
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                "exit status {status}: {err}"
            );
            // Linux reports ru_maxrss in KiB.
            return usage.ru_maxrss as u64;
        }
        if Instant::now() > deadline {
            unsafe { libc::kill(pid, libc::SIGKILL) };
            let _ = unsafe { libc::waitpid(pid, &mut status, 0) };
            panic!("the run did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn check(what: &str, peak_30_kb: u64, peak_300_kb: u64) {
    eprintln!("{what}: peak {peak_30_kb} KiB at 30 frames, {peak_300_kb} KiB at 300");
    assert!(
        peak_30_kb > 10 * 1024,
        "{what}: a peak of {peak_30_kb} KiB means the run did not really happen"
    );
    let allowed = allowed_growth_kb(peak_30_kb);
    assert!(
        peak_300_kb <= peak_30_kb + allowed,
        "{what}: peak resident memory grew from {peak_30_kb} KiB (30 frames) to {peak_300_kb} KiB (300 frames), more than the {allowed} KiB allowed"
    );
}

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stridescope"));
    cmd.env_remove("STRIDESCOPE_REDUCE_KEYS");
    cmd
}

/// `render` in one mode at 30 and 300 frames; `args(frames, dir)` builds the arguments.
fn soak_render(name: &str, args: &dyn Fn(u32, &Path) -> Vec<String>) {
    let dir = temp_dir(name);
    let mut peaks = [0u64; 2];
    for (k, frames) in [30u32, 300].into_iter().enumerate() {
        let out = dir.join(format!("f{frames}"));
        let mut cmd = bin();
        cmd.arg("render")
            .args(args(frames, &out))
            .args(["--size", "320x240"]);
        peaks[k] = peak_rss_kb(cmd, Duration::from_secs(300));
    }
    check(&format!("render, {name}"), peaks[0], peaks[1]);
    let _ = std::fs::remove_dir_all(dir);
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn render_clip_frames_keep_flat_memory() {
    soak_render("clip", &|n, out| {
        let mut a = strings(&[ROBOT, "--clip", "Robot_Running", "--frames"]);
        a.push(n.to_string());
        a.push("--out-dir".into());
        a.push(out.display().to_string());
        a
    });
}

#[test]
fn render_driven_overlays_and_gif_keep_flat_memory() {
    // Drive with every overlay (the demo walk at 1.8 m/s), written as one GIF.
    soak_render("drive-gif", &|n, out| {
        let mut a = strings(&[
            "--clip",
            "Walk",
            "--movement-speed",
            "1.8",
            "--overlays",
            "all",
            "--frames",
        ]);
        a.push(n.to_string());
        a.push("--gif".into());
        a.push(out.with_extension("gif").display().to_string());
        a
    });
}

#[test]
fn render_scenario_through_the_pose_graph_keeps_flat_memory() {
    let dir = temp_dir("scenario-file");
    let scenario = dir.join("walk_run.ron");
    std::fs::write(
        &scenario,
        r#"(fps: 30, seconds: 12.0, events: [
            (at_secs: 0.5, action: Set("speed", 1.27)),
            (at_secs: 3.0, action: Ramp(param: "speed", to: 5.0, secs: 1.0)),
            (at_secs: 6.0, action: Set("wave", 1.0)),
            (at_secs: 8.0, action: Set("speed", 0.0)),
        ])"#,
    )
    .unwrap();
    soak_render("scenario", &|n, out| {
        let mut a = strings(&["--scenario", scenario.to_str().unwrap(), "--frames"]);
        a.push(n.to_string());
        a.push("--out-dir".into());
        a.push(out.display().to_string());
        a
    });
    let _ = std::fs::remove_dir_all(dir);
}

/// The window in mode `name` ([`soak_modes::WINDOW_MODES`]): a scripted run of 30 or
/// 300 frames that ends in a screenshot ("export": in File > Export preview as a GIF).
fn soak_window(name: &str) {
    let Some(x) = xvfb::Xvfb::start() else { return };
    let dir = temp_dir(name);
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let exporting = name == "export";
    let mut peaks = [0u64; 2];
    for (k, frames) in [30u32, 300].into_iter().enumerate() {
        let mut cmd = bin();
        cmd.args(soak_modes::window_mode(name))
            .args(["--size", "640x400", "--after-frames", &frames.to_string()])
            .env("DISPLAY", &x.display)
            .env_remove("WAYLAND_DISPLAY")
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("STRIDESCOPE_CONFIG_DIR", &dir);
        if name == "matching" {
            cmd.args(["--hold-keys", "w+shift"]);
        }
        if exporting {
            cmd.arg("--export").arg(dir.join(format!("f{frames}.gif")));
        } else {
            cmd.arg("--screenshot")
                .arg(dir.join(format!("f{frames}.png")));
        }
        peaks[k] = peak_rss_kb(cmd, Duration::from_secs(300));
    }
    check(&format!("window, {name}"), peaks[0], peaks[1]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn window_playing_the_robot_keeps_flat_memory() {
    soak_window("clip");
}

#[test]
fn window_pose_graph_keeps_flat_memory() {
    soak_window("graph");
}

#[test]
fn window_drive_with_overlays_keeps_flat_memory() {
    soak_window("drive");
}

#[test]
fn window_motion_matching_keeps_flat_memory() {
    soak_window("matching");
}

#[test]
fn window_onion_skin_keeps_flat_memory() {
    soak_window("onion");
}

#[test]
fn window_mocap_take_keeps_flat_memory() {
    soak_window("mocap");
}

#[test]
fn window_ab_compare_keeps_flat_memory() {
    soak_window("compare");
}

#[test]
fn window_trail_and_plot_keep_flat_memory() {
    soak_window("trail");
}

#[test]
fn window_gif_export_after_playing_keeps_flat_memory() {
    soak_window("export");
}
