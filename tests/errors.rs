//! Errors keep their cause up to the user boundary: one definition of a clip index out of
//! range for every layer, the operating system's reason reachable through `source()` from
//! the command line's and the window's errors, and `error:` lines that print each cause
//! once.

use std::error::Error;
use std::path::Path;
use std::process::Command;

use stridescope::anim::{AnimError, ErrorChain};
use stridescope::asset::{self, ModelError};
use stridescope::graph::{GraphError, PoseGraph};
use stridescope::stage::library::ClipGrid;
use stridescope::stage::StageError;

fn demo() -> asset::Model {
    asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).unwrap()
}

/// The `io::Error` somewhere under `e`, following `source()`.
fn io_cause<'a>(e: &'a (dyn Error + 'static)) -> Option<&'a std::io::Error> {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            return Some(io);
        }
        cause = c.source();
    }
    None
}

#[test]
fn a_clip_out_of_range_is_one_error_in_every_layer() {
    let model = demo();
    let clips = model.clips.len();
    assert!(clips >= 3, "the demo has its walk, run and turn");
    let expected = AnimError::ClipOutOfRange { clip: 99, clips };
    let text = format!("clip 99 out of range ({clips} clips)");

    let e = model.clip_analysis(99).unwrap_err();
    assert_eq!(e, ModelError::Clip(expected.clone()));
    assert_eq!(e.to_string(), text);

    let e = PoseGraph::single_clip(&model, 99).err().unwrap();
    assert_eq!(e, GraphError::Anim(expected.clone()));
    assert_eq!(e.to_string(), text);

    let e = ClipGrid::of_clips(&model, &[0, 99]).err().unwrap();
    assert_eq!(e, StageError::Anim(expected.clone()));
    assert_eq!(e.to_string(), text);
    // Each wrapper hands the core's error on.
    let inner = e.source().unwrap().downcast_ref::<AnimError>().unwrap();
    assert_eq!(*inner, expected);
}

#[test]
fn a_missing_file_keeps_the_systems_reason_up_to_the_command_line() {
    let missing = Path::new("/nonexistent-stridescope/walk.glb");
    assert!(!missing.exists());
    let e = stridescope::cli::load_model(Some(missing)).unwrap_err();
    let io = io_cause(&e).expect("the io::Error under the command's error");
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    // Said once: the import error's message already carries the reason.
    let report = e.report();
    assert!(
        report.starts_with("/nonexistent-stridescope/walk.glb: "),
        "{report}"
    );
    assert_eq!(report.matches(&io.to_string()).count(), 1, "{report}");
}

#[test]
fn the_chain_adds_a_cause_its_wrapper_does_not_say() {
    // A wrapper that only says what it was doing: the reason comes from its source.
    #[derive(Debug)]
    struct Saving(std::io::Error);
    impl std::fmt::Display for Saving {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("out.glb: cannot write")
        }
    }
    impl Error for Saving {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }
    let e = Saving(std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        "permission denied",
    ));
    assert_eq!(
        ErrorChain(&e).to_string(),
        "out.glb: cannot write: permission denied"
    );
    // A wrapper that says its cause already (the project's errors): printed once.
    let e = StageError::from(AnimError::Empty {
        what: "clip".into(),
    })
    .in_matching();
    assert_eq!(ErrorChain(&e).to_string(), "motion matching: clip: no data");
}

#[test]
fn the_command_line_prints_the_reason_of_a_file_it_cannot_write() {
    // A file where a folder should be: no folder can be made under it.
    let dir = std::env::temp_dir().join(format!("stridescope-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let blocker = dir.join("a-file");
    std::fs::write(&blocker, b"not a folder").unwrap();
    let out_path = blocker.join("demo.glb");
    let reason = std::fs::create_dir_all(&blocker).unwrap_err().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .arg("make-demo")
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // `cannot write` is the command's; the reason is the operating system's, reached
    // through `source()`.
    assert_eq!(
        stderr.trim_end(),
        format!("error: {}: cannot write: {reason}", out_path.display())
    );
}

#[test]
fn the_window_keeps_the_cause_of_a_file_it_cannot_open() {
    let model = demo();
    let mut p = stridescope::app::controller::Previewer::new(
        model,
        None,
        stridescope::app::settings::Settings::default(),
    );
    let missing = Path::new("/nonexistent-stridescope/run.bvh");
    assert!(!missing.exists());
    let e = p.open_path(missing).unwrap_err();
    let io = io_cause(&e).expect("the io::Error under the window's error");
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    // The status bar says it, keeping the character that was open.
    let m = p.message().expect("a status message");
    assert!(m.is_error);
    let status = &m.text;
    assert!(status.contains(&io.to_string()), "{status}");
    assert!(status.contains("(kept demo.glb)"), "{status}");
}

#[test]
fn the_lint_prints_the_reason_of_a_folder_it_cannot_read() {
    let missing = Path::new("/nonexistent-stridescope/takes");
    assert!(!missing.exists());
    let reason = std::fs::metadata(missing).unwrap_err().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .arg("lint")
        .arg(missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        format!("error: {}: cannot read: {reason}", missing.display())
    );
}
