//! Skipping a GPU or window test where the machine cannot run it, and saying so; included
//! by `common` and by `xvfb.rs` (which window tests include on their own).

/// True when GPU and window tests must run rather than skip: under CI (`CI` set; CI
/// installs lavapipe and Xvfb, so a skip there would hide a broken install) or with
/// `STRIDESCOPE_REQUIRE_GPU=1`.
#[allow(dead_code)] // Not every test file uses both.
pub fn gpu_required() -> bool {
    std::env::var_os("CI").is_some()
        || std::env::var("STRIDESCOPE_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Says on the terminal that the running test skipped and why. Written to the stderr
/// handle itself, which the test harness does not capture (it captures `eprintln!`), so
/// a plain `cargo test` shows every skip.
#[allow(dead_code)] // Not every test file uses both.
pub fn report_skip(why: &str) {
    use std::io::Write as _;
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {why} (STRIDESCOPE_REQUIRE_GPU=1 makes it fail instead)"
    );
}
