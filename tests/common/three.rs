//! three.js's own loaders and AnimationMixer as an independent oracle, run in Node by
//! `tests/oracle/three_joints.mjs` (see `tests/three_oracle.rs`). `.ci/setup` installs
//! three (npm) into `target/tools`; without Node or three a local run says it skips, and
//! under `CI=true` (or `STRIDESCOPE_REQUIRE_GPU=1`) it fails instead.
#![allow(dead_code)] // Not every test file that includes `common` uses every helper.

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Vec3;

/// Where `.ci/setup` installs the npm tools.
pub fn tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools")
}

/// Whether a missing tool fails the test (CI) rather than skipping it.
fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("STRIDESCOPE_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// three.js's report for `file` at `samples` (a count of times spread over each clip, or
/// `at:T1,T2,...`), or `None` (said) when Node or three is missing outside CI.
pub fn three(file: &Path, samples: &str) -> Option<serde_json::Value> {
    three_run(file.as_os_str(), samples, &file.display().to_string())
}

/// three.js's reports for every file of `files`, in order, from one Node run.
pub fn three_many(files: &[PathBuf], samples: &str) -> Option<Vec<serde_json::Value>> {
    let list = std::env::temp_dir().join(format!(
        "stridescope-oracle-list-{}.txt",
        std::process::id()
    ));
    let text: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    std::fs::write(&list, text.join("\n")).unwrap();
    let mut arg = std::ffi::OsString::from("@");
    arg.push(&list);
    let all = three_run(&arg, samples, &format!("{} files", files.len()));
    let _ = std::fs::remove_file(&list);
    Some(serde_json::from_value(all?).unwrap())
}

fn three_run(file: &std::ffi::OsStr, samples: &str, what: &str) -> Option<serde_json::Value> {
    let have_three = tools().join("node_modules/three/package.json").exists();
    let node = Command::new("node").arg("--version").output();
    if !have_three || node.is_err() {
        let why = "node or npm's three is missing (bash .ci/setup installs them)";
        assert!(!required(), "{why}");
        eprintln!("skipping the three.js oracle: {why}");
        return None;
    }
    let out = Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/three_joints.mjs"))
        .arg(tools())
        .arg(file)
        .arg(samples)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "three.js on {what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// three.js's `PropertyBinding.sanitizeNodeName`: whitespace to `_`, `[ ] . : /` removed.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '[' | ']' | '.' | ':' | '/'))
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}

/// A JSON `[x, y, z]` as a vector.
pub fn vec3(v: &serde_json::Value) -> Option<Vec3> {
    let a = v.as_array()?;
    Some(Vec3::new(
        a.first()?.as_f64()? as f32,
        a.get(1)?.as_f64()? as f32,
        a.get(2)?.as_f64()? as f32,
    ))
}
