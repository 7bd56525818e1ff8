//! Helpers shared by the integration tests.

use stridescope::render::GpuContext;

/// A headless GPU context. With `CI` set a missing adapter fails the test (CI installs
/// lavapipe, so a skip there would hide a broken install); without it the test prints why
/// it skips and returns `None`.
pub fn gpu() -> Option<GpuContext> {
    match GpuContext::headless() {
        Ok(ctx) => Some(ctx),
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("CI is set but there is no GPU adapter: {e}")
        }
        Err(e) => {
            eprintln!("skipping: no GPU adapter ({e})");
            None
        }
    }
}
