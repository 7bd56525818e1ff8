//! The long memory soak (issue 17), for the record: every mode that animates plays in its
//! own window under Xvfb for `STRIDESCOPE_SOAK_SECS` seconds (default 600), all at once,
//! and each window's resident memory (`VmRSS`) is sampled every second. Prints the curve
//! (every 30 s) and, per mode, the memory after the first minute (warm-up) and at the
//! end. Motion matching is driven by held keys (xdotool `keydown shift+w`), as a user
//! holding Shift+W would.
//!
//! `cargo bench --bench soak`, or `STRIDESCOPE_SOAK_SECS=120 STRIDESCOPE_SOAK_MODES=clip,graph
//! cargo bench --bench soak`. Needs Xvfb and xdotool (`.ci/setup` installs both).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../tests/common/soak_modes.rs"]
mod soak_modes;
#[path = "../tests/common/xvfb.rs"]
mod xvfb;

/// CPU seconds the process has used (user + system), from `/proc/PID/stat`: shows that
/// the window really drew all along.
fn cpu_secs(pid: u32) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn rss_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn main() {
    let secs: u64 = std::env::var("STRIDESCOPE_SOAK_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let wanted = std::env::var("STRIDESCOPE_SOAK_MODES").ok();
    // Every mode but the export, which ends the run.
    let modes: Vec<_> = soak_modes::WINDOW_MODES
        .iter()
        .filter(|(name, _)| *name != "export")
        .filter(|(name, _)| {
            wanted
                .as_deref()
                .is_none_or(|w| w.split(',').any(|m| m == *name))
        })
        .collect();
    let work = std::env::temp_dir().join(format!("stridescope-soak-bench-{}", std::process::id()));
    let runtime = work.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let manifest = env!("CARGO_MANIFEST_DIR");
    let mut runs = Vec::new();
    for (name, args) in &modes {
        // One X server per window, so held keys reach only the window that wants them.
        let d = xvfb::Xvfb::start().expect("Xvfb (apt install xvfb)");
        let config = work.join(name);
        std::fs::create_dir_all(&config).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_stridescope"))
            .current_dir(manifest)
            .args(*args)
            .args(["--size", "640x400"])
            .env("DISPLAY", &d.display)
            .env_remove("WAYLAND_DISPLAY")
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("STRIDESCOPE_CONFIG_DIR", &config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start stridescope");
        runs.push((*name, d, child, Vec::<u64>::new()));
    }
    // Hold Shift+W over the motion-matching window once it is up.
    std::thread::sleep(Duration::from_secs(5));
    for (name, d, _, _) in &runs {
        if *name == "matching" {
            for args in [&["mousemove", "320", "200"][..], &["keydown", "shift+w"]] {
                let _ = Command::new("xdotool")
                    .args(args)
                    .env("DISPLAY", &d.display)
                    .status();
            }
        }
    }
    let start = Instant::now();
    println!("soak: {} modes for {secs} s, VmRSS in MB", runs.len());
    let header: Vec<String> = runs.iter().map(|r| format!("{:>9}", r.0)).collect();
    println!("{:>6} {}", "secs", header.join(" "));
    for s in 0..=secs {
        let due = start + Duration::from_secs(s);
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        for (name, _, child, samples) in &mut runs {
            match rss_kb(child.id()) {
                Some(kb) => samples.push(kb),
                None => panic!("{name}: the window exited after {s} s"),
            }
        }
        if s % 30 == 0 {
            let row: Vec<String> = runs
                .iter()
                .map(|r| format!("{:>9.1}", *r.3.last().unwrap() as f64 / 1024.0))
                .collect();
            println!("{s:>6} {}", row.join(" "));
        }
    }
    println!(
        "per mode: MB at 60 s (after warm-up) -> end, the largest after 60 s, CPU seconds used"
    );
    for (name, _, child, samples) in &mut runs {
        let cpu = cpu_secs(child.id()).unwrap_or(0.0);
        let _ = child.kill();
        let _ = child.wait();
        let warm = samples.get(60).or(samples.last()).copied().unwrap_or(0);
        let end = *samples.last().unwrap_or(&0);
        let max = samples.iter().skip(60).copied().max().unwrap_or(end);
        println!(
            "  {name:>9}: {:.1} -> {:.1} MB (max {:.1}, {:+.1} MB), {cpu:.0} CPU s",
            warm as f64 / 1024.0,
            end as f64 / 1024.0,
            max as f64 / 1024.0,
            (end as f64 - warm as f64) / 1024.0
        );
    }
    let _ = std::fs::remove_dir_all(work);
}
