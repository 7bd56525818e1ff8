//! A private Xvfb server for the tests that start the real window (tests/window.rs,
//! tests/soak.rs), included with `#[path]`. With `CI` set (or `STRIDESCOPE_REQUIRE_GPU=1`)
//! a missing Xvfb fails the test; without it the test says why it skips.

#[path = "skip.rs"]
mod skip;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A private X server for one test, killed on drop.
pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Xvfb {
    /// Starts an X server on a free display: `-displayfd` makes Xvfb pick the number and
    /// print it once it accepts connections, so parallel tests never share a display.
    pub fn start() -> Option<Xvfb> {
        use std::io::{BufRead, BufReader};
        let child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1600x1000x24",
                "-nolisten",
                "tcp",
                // Without it the server resets when its last client leaves, which puts
                // the pointer back in the middle (see `park_pointer`).
                "-noreset",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => return skip_or_fail(&format!("cannot start Xvfb ({e}); install xvfb")),
        };
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(line) if !line.trim().is_empty() => {
                let x = Xvfb {
                    child,
                    display: format!(":{}", line.trim()),
                };
                x.park_pointer();
                Some(x)
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                skip_or_fail("Xvfb did not report a display")
            }
        }
    }
}

impl Xvfb {
    /// Moves the pointer to the screen's bottom-right corner, off the app's window. Xvfb
    /// starts it at the centre, which lands on the timeline's toolbar of a 960x600 window:
    /// on a loaded machine the frames before the screenshot take long enough for a
    /// tooltip to open there and cover the playhead.
    fn park_pointer(&self) {
        let _ = Command::new("xdotool")
            .args(["mousemove", "1599", "999"])
            .env("DISPLAY", &self.display)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `None` after saying (on the terminal, past the test harness's capture) why the window
/// test skips; under CI or with `STRIDESCOPE_REQUIRE_GPU=1` it fails instead.
pub fn skip_or_fail<T>(why: &str) -> Option<T> {
    if skip::gpu_required() {
        panic!("the window tests must run (CI or STRIDESCOPE_REQUIRE_GPU=1) but cannot: {why}");
    }
    skip::report_skip(why);
    None
}
