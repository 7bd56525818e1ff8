//! Clip-library lint (issue 10): each check finds the problem planted for it in a copy of
//! the demo walk and stays quiet on the clean demo; `stridescope lint` on the shared
//! characters plus a broken file reports it, gives the same JSON with any -j, and exits
//! 0 / 1 / 2.

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Quat, Vec3};
use stridescope::anim::{Clip, ClipRootMotion, Interpolation, JointTracks, SyncMarker, Track};
use stridescope::asset::Model;
use stridescope::cli::lint::{lint_loaded, Finding, LintReport, LintSettings};

fn demo() -> Model {
    stridescope::asset::load_or_demo(None).unwrap()
}

fn clip<'a>(model: &'a Model, name: &str) -> &'a Clip {
    &model.clips[model.find_clip(name).unwrap()]
}

/// A copy of `source` named `name`, with `edit` applied to its tracks and markers.
fn variant(
    model: &Model,
    source: &str,
    name: &str,
    edit: impl FnOnce(&mut Vec<JointTracks>, &mut Vec<SyncMarker>),
) -> Clip {
    let c = clip(model, source);
    let mut tracks = c.tracks().to_vec();
    let mut markers = c.markers().to_vec();
    edit(&mut tracks, &mut markers);
    Clip::new(name.into(), tracks, markers, model.skeleton.joint_count()).unwrap()
}

fn vec3_track(t: &Track<Vec3>, values: Vec<Vec3>) -> Track<Vec3> {
    Track::new(t.interpolation(), t.times().to_vec(), values, "edited").unwrap()
}

fn lint(models: Vec<(String, Model)>) -> LintReport {
    lint_loaded(&models, &LintSettings::default())
}

fn findings_of<'a>(report: &'a LintReport, clip: &str) -> Vec<&'a Finding> {
    report
        .files
        .iter()
        .flat_map(|f| &f.findings)
        .filter(|f| f.clip.as_deref() == Some(clip))
        .collect()
}

fn only<'a>(report: &'a LintReport, clip: &str, check: &str) -> &'a Finding {
    let all = findings_of(report, clip);
    let hits: Vec<_> = all.iter().filter(|f| f.check == check).collect();
    assert_eq!(hits.len(), 1, "'{clip}' {check}: {all:#?}");
    hits[0]
}

#[test]
fn the_demo_is_clean() {
    let report = lint(vec![("demo.glb".into(), demo())]);
    assert!(report.is_clean(), "{:#?}", report.files[0].findings);
    assert_eq!(report.summary.clips, 5);
}

#[test]
fn each_check_finds_the_problem_planted_for_it() {
    let mut model = demo();
    let walk = clip(&model, "Walk").clone();
    let d = walk.duration_secs();
    let root_joint = ClipRootMotion::for_clip(&model.skeleton, &walk, None)
        .unwrap()
        .unwrap()
        .source
        .joint;
    let spine = model.skeleton.find("spine_02").unwrap();
    let cycle = {
        let t = walk
            .joint_tracks(root_joint)
            .unwrap()
            .translation
            .as_ref()
            .unwrap();
        let k = t.times().len() - 1;
        (t.key_value(k) - t.key_value(0)) * Vec3::new(1.0, 0.0, 1.0)
    };

    // A 5 degree pop on spine_02 at the last key.
    let popped = variant(&model, "Walk", "Popped", |tracks, _| {
        let tr = tracks.iter_mut().find(|t| t.joint == spine).unwrap();
        let r = tr.rotation.as_ref().unwrap();
        let mut values = r.values().to_vec();
        let last = values.len() - 1;
        values[last] = Quat::from_rotation_x(5f32.to_radians()) * values[last];
        tr.rotation =
            Some(Track::new(r.interpolation(), r.times().to_vec(), values, "pop").unwrap());
    });
    // The root travels 1.5 times as far as the feet push it: planted feet slide.
    let skate = variant(&model, "Walk", "Skate", |tracks, _| {
        let tr = tracks.iter_mut().find(|t| t.joint == root_joint).unwrap();
        let t = tr.translation.as_ref().unwrap();
        let p0 = t.key_value(0);
        let values = t
            .values()
            .iter()
            .map(|&p| p + (p - p0) * Vec3::new(0.5, 0.0, 0.5))
            .collect();
        tr.translation = Some(vec3_track(t, values));
    });
    // Three keys before the end the root is 10 cm ahead of where the cycle ends: it walks
    // backwards into the wrap.
    let reversing = variant(&model, "Walk", "Reversing", |tracks, _| {
        let tr = tracks.iter_mut().find(|t| t.joint == root_joint).unwrap();
        let t = tr.translation.as_ref().unwrap();
        let mut values = t.values().to_vec();
        let n = values.len();
        values[n - 3] = values[n - 1] + cycle.normalize() * 0.1;
        tr.translation = Some(vec3_track(t, values));
    });
    // The file's foot markers a third of a cycle late.
    let shifted = variant(&model, "Walk", "Shifted", |_, markers| {
        for m in markers {
            m.time_secs = (m.time_secs + d / 3.0) % d;
        }
    });
    // Two cycles in one clip: 2 strides where the rest of the set holds 1.
    let double = variant(&model, "Walk", "DoubleWalk", |tracks, markers| {
        for tr in tracks.iter_mut() {
            let twice_vec = |t: &Track<Vec3>, offset: Vec3| {
                let mut times = t.times().to_vec();
                let mut values = t.values().to_vec();
                times.extend(t.times()[1..].iter().map(|x| x + d));
                values.extend(t.values()[1..].iter().map(|v| *v + offset));
                Track::new(t.interpolation(), times, values, "twice").unwrap()
            };
            let offset = if tr.joint == root_joint {
                cycle
            } else {
                Vec3::ZERO
            };
            tr.translation = tr.translation.as_ref().map(|t| twice_vec(t, offset));
            tr.scale = tr.scale.as_ref().map(|t| twice_vec(t, Vec3::ZERO));
            tr.rotation = tr.rotation.as_ref().map(|r| {
                let mut times = r.times().to_vec();
                let mut values = r.values().to_vec();
                times.extend(r.times()[1..].iter().map(|x| x + d));
                values.extend_from_slice(&r.values()[1..]);
                Track::new(r.interpolation(), times, values, "twice").unwrap()
            });
        }
        let more: Vec<SyncMarker> = markers
            .iter()
            .map(|m| SyncMarker {
                name: m.name.clone(),
                time_secs: m.time_secs + d,
            })
            .collect();
        markers.extend(more);
    });
    // Walk flagged additive: a layer that travels.
    let additive_walk = Clip::new(
        "AdditiveWalk".into(),
        walk.tracks().to_vec(),
        vec![],
        model.skeleton.joint_count(),
    )
    .unwrap()
    .with_additive(true);
    // Every bone's translation at zero: authored as deltas, not flagged additive.
    let deltas = {
        let tracks = (1..model.skeleton.joint_count())
            .filter(|&j| model.skeleton.rest_pose()[j].translation.length() > 1e-3)
            .map(|j| {
                let mut t = JointTracks::new(j);
                t.translation = Some(
                    Track::new(
                        Interpolation::Linear,
                        vec![0.0, 1.0],
                        vec![Vec3::ZERO; 2],
                        "delta",
                    )
                    .unwrap(),
                );
                t
            })
            .collect();
        Clip::new(
            "Deltas".into(),
            tracks,
            vec![],
            model.skeleton.joint_count(),
        )
        .unwrap()
    };
    // One key per track.
    let pose = {
        let mut t = JointTracks::new(spine);
        t.rotation = Some(
            Track::new(
                Interpolation::Linear,
                vec![0.0],
                vec![Quat::IDENTITY],
                "pose",
            )
            .unwrap(),
        );
        Clip::new("Pose".into(), vec![t], vec![], model.skeleton.joint_count()).unwrap()
    };
    model.clips.extend([
        popped,
        skate,
        reversing,
        shifted,
        double,
        additive_walk,
        deltas,
        pose,
    ]);
    let report = lint(vec![("edited.glb".into(), model)]);

    // The originals stay clean: every finding below comes from its planted problem.
    for name in ["Walk", "Run", "Idle", "TurnWalk", "Wave"] {
        assert!(
            findings_of(&report, name).is_empty(),
            "{name}: {:#?}",
            findings_of(&report, name)
        );
    }

    let pop = only(&report, "Popped", "loop-seam");
    assert_eq!(pop.joint.as_deref(), Some("spine_02"));
    assert!(
        pop.message.contains("rotation jumps 5.00 deg"),
        "{}",
        pop.message
    );
    assert_eq!(
        findings_of(&report, "Popped").len(),
        1,
        "{:#?}",
        findings_of(&report, "Popped")
    );

    // Each planted foot is down 60% of the cycle while the root moves half a stride more
    // than the feet push it: 0.5 * 0.6 = 0.3 of the cycle's travel per foot.
    let slide = only(&report, "Skate", "foot-slide");
    let expected = 0.3 * f64::from(cycle.length());
    assert!(
        (slide.value - expected).abs() < 0.15 * expected,
        "slide {} m per cycle, expected about {expected} m",
        slide.value
    );

    // The share of the cycle's frames that move backwards: the last keys, not all.
    let rev = only(&report, "Reversing", "root-reversal");
    assert!(rev.value > 0.0 && rev.value < 0.25, "{rev:?}");

    let m = only(&report, "Shifted", "markers-disagree");
    // A third of the cycle off, within the detection's own 0.06 s.
    assert!(
        (m.value - f64::from(d / 3.0)).abs() < 0.07,
        "{m:?} (a third of the cycle is {} s)",
        d / 3.0
    );

    let strides = only(&report, "DoubleWalk", "stride-count");
    assert_eq!((strides.value, strides.threshold), (2.0, 1.0));

    let a = only(&report, "AdditiveWalk", "additive-travels");
    assert!((a.value - f64::from(cycle.length())).abs() < 1e-3, "{a:?}");

    let deltas = only(&report, "Deltas", "looks-additive");
    assert!(deltas.value > 0.99, "{deltas:?}");

    only(&report, "Pose", "empty-clip");
    assert!(!report.is_clean());
}

/// A hitch: position continuous at the wrap, but the swing bounces off the seam (|sin|:
/// slope -A pi into it, +A pi out of it) while every other key changes slope smoothly.
#[test]
fn a_velocity_hitch_stands_out_from_the_inner_keys() {
    let mut model = demo();
    let spine = model.skeleton.find("spine_01").unwrap();
    let times: Vec<f32> = (0..=60).map(|i| i as f32 / 60.0).collect();
    let bounce = |t: f32| (std::f32::consts::PI * t).sin().abs() * 0.4;
    let smooth = |t: f32| (std::f32::consts::TAU * t).sin() * 0.4;
    let make = |name: &str, f: &dyn Fn(f32) -> f32| {
        let mut tr = JointTracks::new(spine);
        tr.rotation = Some(
            Track::new(
                Interpolation::Linear,
                times.clone(),
                times.iter().map(|&t| Quat::from_rotation_x(f(t))).collect(),
                name,
            )
            .unwrap(),
        );
        Clip::new(name.into(), vec![tr], vec![], model.skeleton.joint_count()).unwrap()
    };
    let mut seams = Vec::new();
    stridescope::anim::seam::LoopSeamJob {
        skeleton: &model.skeleton,
        clip: &make("Bounce", &bounce),
        root_motion: None,
    }
    .run(&mut seams)
    .unwrap();
    // Slope -0.4 pi rad/s into the seam, +0.4 pi out of it.
    assert!(
        (seams[0].velocity_jump - 0.8 * std::f32::consts::PI).abs() < 0.02,
        "{:?}",
        seams[0]
    );
    let chain = seams[0].chain_length_m;
    model.clips = vec![make("Bounce", &bounce), make("Smooth", &smooth)];
    let report = lint(vec![("hitch.glb".into(), model)]);
    let h = only(&report, "Bounce", "loop-seam-velocity");
    assert_eq!(h.joint.as_deref(), Some("spine_01"));
    assert!(findings_of(&report, "Bounce")
        .iter()
        .all(|f| f.check != "loop-seam"));
    assert!((h.value - f64::from(0.8 * std::f32::consts::PI * chain)).abs() < 0.05);
    assert!(
        findings_of(&report, "Smooth").is_empty(),
        "{:#?}",
        findings_of(&report, "Smooth")
    );
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_stridescope"));
    c.env("XDG_RUNTIME_DIR", std::env::temp_dir());
    c
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stridescope-lint-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn lint_cli_on_the_shared_characters_and_a_broken_file() {
    let dir = scratch("assets");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets"),
        &dir,
    );
    std::fs::write(dir.join("broken.glb"), b"not a gltf").unwrap();
    let run = |jobs: &str| {
        let out = bin()
            .arg("lint")
            .arg(&dir)
            .args(["--json", "-j", jobs])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let one = run("1");
    let two = run("2");
    assert!(one == two, "--json differs between -j 1 and -j 2");
    let json: serde_json::Value = serde_json::from_slice(&one).unwrap();
    let files = json["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted, "files are listed in path order");
    let broken = files
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("broken.glb"))
        .expect("the broken file is listed");
    assert!(broken["error"]
        .as_str()
        .unwrap()
        .contains("too short for a GLB header"));
    assert_eq!(broken["findings"][0]["check"], "load");
    // The run went on past it: every other file loaded, with its clips.
    let robot = files
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("robot.glb"))
        .unwrap();
    assert!(robot["error"].is_null());
    assert!(robot["clips"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c == "Robot_Walking"));
    let s = &json["summary"];
    assert_eq!(s["unreadable"], 1);
    assert_eq!(s["errors"], 1);
    assert_eq!(s["files"].as_u64().unwrap() as usize, files.len());
    // Robot_Standing starts seated and ends standing: looped, the body jumps.
    let standing = robot["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["clip"] == "Robot_Standing" && f["check"] == "loop-seam")
        .expect("Robot_Standing does not loop");
    assert!(standing["value"].as_f64().unwrap() > 0.5);
    // CesiumMan's right leg: its first and last rotation keys are 3 degrees apart (read
    // straight from the keys here), and lint names that joint for the pop.
    let cesium = stridescope::asset::load(&dir.join("CesiumMan/CesiumMan.glb")).unwrap();
    let leg = cesium.skeleton.find("leg_joint_R_1").unwrap();
    let keys = cesium.clips[0]
        .joint_tracks(leg)
        .unwrap()
        .rotation
        .as_ref()
        .unwrap();
    let first = keys.key_value(0);
    let last = keys.key_value(keys.times().len() - 1);
    let degrees = first.angle_between(last).to_degrees();
    assert!((degrees - 3.0).abs() < 0.1, "{degrees}");
    let cesium_report = files
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("CesiumMan.glb"))
        .unwrap();
    let seam = cesium_report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "loop-seam")
        .expect("CesiumMan pops at the loop");
    assert_eq!(seam["joint"], "leg_joint_R_1");
    assert!(seam["message"]
        .as_str()
        .unwrap()
        .contains(&format!("{degrees:.2} deg")));

    // Text mode: ranked, errors first, one summary line.
    let text = bin().arg("lint").arg(&dir).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with("error"), "{text}");
    assert!(
        text.trim_end()
            .lines()
            .last()
            .unwrap()
            .contains("1 unreadable"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lint_exit_codes() {
    let dir = scratch("codes");
    let demo = dir.join("demo.glb");
    assert!(bin()
        .args(["make-demo", "--out"])
        .arg(&demo)
        .output()
        .unwrap()
        .status
        .success());
    let clean = bin().arg("lint").arg(&demo).output().unwrap();
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&clean.stdout)
    );
    assert!(String::from_utf8_lossy(&clean.stdout).contains("clean"));
    for args in [
        vec!["lint".to_string()],
        vec!["lint".into(), dir.join("missing.glb").display().to_string()],
        vec![
            "lint".into(),
            demo.display().to_string(),
            "--seam-m".into(),
            "0".into(),
        ],
    ] {
        let out = bin().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = bin().arg("lint").arg(&empty).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no .gltf or .glb files"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A clip with a stray key far out (frame numbers written as seconds) is reported as too
/// long to play instead of stalling the run; a folder that links back to itself is walked
/// once.
#[test]
fn long_clips_and_symlink_loops_do_not_stall_lint() {
    let mut model = demo();
    let spine = model.skeleton.find("spine_01").unwrap();
    let mut t = JointTracks::new(spine);
    t.rotation = Some(
        Track::new(
            Interpolation::Linear,
            vec![0.0, 100_000.0],
            vec![Quat::IDENTITY, Quat::from_rotation_x(0.5)],
            "stray",
        )
        .unwrap(),
    );
    model.clips.push(
        Clip::new(
            "Stray".into(),
            vec![t],
            vec![],
            model.skeleton.joint_count(),
        )
        .unwrap(),
    );
    let report = lint(vec![("stray.glb".into(), model)]);
    let long = only(&report, "Stray", "long-clip");
    assert_eq!(long.value, 100_000.0);
    assert!(findings_of(&report, "Stray")
        .iter()
        .all(|f| f.check != "foot-slide" && f.check != "root-reversal"));

    #[cfg(unix)]
    {
        let dir = scratch("loop");
        let demo_path = dir.join("demo.glb");
        stridescope::asset::demo::write_demo(&demo_path).unwrap();
        std::os::unix::fs::symlink(&dir, dir.join("again")).unwrap();
        let files = stridescope::cli::lint::collect_files(std::slice::from_ref(&dir)).unwrap();
        assert_eq!(files, vec![demo_path]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
