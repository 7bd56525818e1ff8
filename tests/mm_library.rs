//! Motion matching on a motion-capture library (issue 22, first part): `trace
//! --motion-matching --library DIR` retargets every clip of the folder onto the character
//! (the built-in demo here) and matches on them instead of the character's own clips.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `cmd` (a `stridescope` command printing JSON) and parses what it prints; a
/// failure shows its error output.
fn json_of(cmd: &mut Command) -> serde_json::Value {
    let run = cmd.output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap()
}

/// A fresh folder `<temp>/<tag>-<pid>` holding copies of the Bandai takes `names` (file
/// stems), as a user's library folder.
fn bandai_copies(tag: &str, names: &[&str]) -> PathBuf {
    let bandai = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mocap/bandai");
    let dir = std::env::temp_dir().join(format!("{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for n in names {
        std::fs::copy(
            bandai.join(format!("{n}.bvh")),
            dir.join(format!("{n}.bvh")),
        )
        .unwrap();
    }
    dir
}

#[test]
fn a_folder_of_mocap_is_retargeted_onto_the_demo_and_matched() {
    let names = [
        "dataset-2_walk_normal_002",
        "dataset-2_walk_normal_004",
        "dataset-2_run_normal_001",
    ];
    let dir = bandai_copies("stridescope-mm-library", &names);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stridescope"));
    cmd.args(["trace", "--motion-matching", "--json", "--library"])
        .arg(&dir);
    let r = json_of(&mut cmd);
    assert_eq!(r["library_files"], 3);
    assert_eq!(r["mirrored"], false);
    assert!(r["build_secs"].as_f64().unwrap() > 0.0);
    // The database holds the library's clips, not the demo's own (about 20 s of mocap
    // sampled by the matcher).
    let mut clips: Vec<String> = r["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    clips.sort();
    let mut expected: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(clips, expected);
    let frames = r["database_frames"].as_u64().unwrap();
    assert!(frames > 300, "{frames} database frames");
    // The default scenario walks most of its 12 s: the walks play.
    let secs = &r["summary"]["clip_secs"];
    let walking = secs["dataset-2_walk_normal_002"].as_f64().unwrap_or(0.0)
        + secs["dataset-2_walk_normal_004"].as_f64().unwrap_or(0.0);
    assert!(walking > 6.0, "walked {walking} s: {secs}");

    // --mirror: every clip enters mirrored too, doubling the database.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stridescope"));
    cmd.args([
        "trace",
        "--motion-matching",
        "--json",
        "--mirror",
        "--library",
    ])
    .arg(&dir);
    let m = json_of(&mut cmd);
    assert_eq!(m["mirrored"], true);
    assert_eq!(m["database_frames"].as_u64().unwrap(), 2 * frames);
    let names: Vec<&str> = m["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"dataset-2_walk_normal_002 (mirrored)"),
        "{names:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tags of a library: a capture file's name gives its motion, direction and style (left and
/// right swapped on the mirrored copy), and a `<stem>.tags.ron` beside a file tags its
/// clips over the seconds it says.
#[test]
fn library_takes_are_tagged_by_their_names_and_sidecars() {
    use stridescope::stage::matching::{name_tags, MatchingDef, MatchingSession};
    assert_eq!(
        name_tags("dataset-2_walk-turn-left_active_002"),
        [
            "walk-turn-left",
            "walk",
            "turn",
            "left",
            "turn-left",
            "active"
        ]
    );
    assert_eq!(
        name_tags("dataset-2_walk-turn-left_active_002 (mirrored)"),
        [
            "walk-turn-right",
            "walk",
            "turn",
            "right",
            "turn-right",
            "active"
        ]
    );
    assert_eq!(
        name_tags("dataset-2_run_elderly_004 (2)"),
        ["run", "elderly"]
    );
    assert!(
        name_tags("WalkStart").is_empty(),
        "not a capture file's name"
    );

    let dir = bandai_copies(
        "stridescope-mm-tags",
        &[
            "dataset-2_walk_normal_002",
            "dataset-2_run_normal_001",
            "dataset-2_wave-left-hand_active_011",
        ],
    );
    std::fs::write(
        dir.join("dataset-2_walk_normal_002.tags.ron"),
        r#"[(tag: "stroll"), (tag: "stumble", start_secs: Some(1.0), end_secs: Some(2.0))]"#,
    )
    .unwrap();
    // A sidecar on a take that is not locomotion (the matching set leaves it out): no
    // error, its tags go nowhere.
    std::fs::write(
        dir.join("dataset-2_wave-left-hand_active_011.tags.ron"),
        r#"[(tag: "greet-left")]"#,
    )
    .unwrap();
    let (model, files, tags) =
        stridescope::stage::retarget::library_model(None, std::slice::from_ref(&dir), true)
            .unwrap();
    assert_eq!(files, 3);
    // Both tags on the take and on its mirrored copy (left and right swapped there).
    let mut on: Vec<(String, String)> = tags
        .iter()
        .map(|t| (t.tag.clone(), t.clip.clone()))
        .collect();
    on.sort();
    let wave = "dataset-2_wave-left-hand_active_011";
    let walk = "dataset-2_walk_normal_002";
    let want: Vec<(String, String)> = [
        ("greet-left", wave.to_string()),
        ("greet-right", format!("{wave} (mirrored)")),
        ("stroll", walk.to_string()),
        ("stroll", format!("{walk} (mirrored)")),
        ("stumble", walk.to_string()),
        ("stumble", format!("{walk} (mirrored)")),
    ]
    .into_iter()
    .map(|(t, c)| (t.to_string(), c))
    .collect();
    assert_eq!(on, want);
    let def = MatchingDef {
        tags,
        ..MatchingDef::default()
    };
    let s = MatchingSession::new(&model, def, None).unwrap();
    let names = s.db.tag_names();
    let bit = |t: &str| {
        1u32 << names
            .iter()
            .position(|n| n == t)
            .unwrap_or_else(|| panic!("{t} in {names:?}"))
    };
    let (stroll, stumble, run, normal) = (bit("stroll"), bit("stumble"), bit("run"), bit("normal"));
    let mut seen = [false; 3];
    for f in s.db.frames() {
        let clip = &s.db.clips()[f.source as usize].name;
        let walk = clip.starts_with("dataset-2_walk_normal_002");
        assert_eq!(f.tags & stroll != 0, walk, "{clip} at {}", f.time_secs);
        let in_range = walk && (1.0..=2.0).contains(&f.time_secs);
        assert_eq!(f.tags & stumble != 0, in_range, "{clip} at {}", f.time_secs);
        assert_eq!(f.tags & run != 0, clip.contains("_run_"), "{clip}");
        assert!(f.tags & normal != 0, "both takes are 'normal': {clip}");
        seen[0] |= walk;
        seen[1] |= in_range;
        seen[2] |= clip.contains("_run_");
    }
    assert_eq!(seen, [true; 3]);
    // A sidecar that does not parse names itself and its line.
    std::fs::write(dir.join("dataset-2_run_normal_001.tags.ron"), "[(tag: )]").unwrap();
    let e = stridescope::stage::retarget::library_model(None, std::slice::from_ref(&dir), false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("dataset-2_run_normal_001.tags.ron: line 1"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A library's database (a model made in memory: no file to name a cache after) is cached
/// in the user's cache folder under its content key: the same library on the same
/// character reads it back; mirrored, it is another library and another cache file.
#[test]
fn a_library_database_is_cached_under_its_content_key() {
    use stridescope::stage::matching::cache::{cache_dir, CacheOutcome};
    use stridescope::stage::matching::{MatchingDef, MatchingSession};
    let dir = bandai_copies(
        "stridescope-mm-cache",
        &["dataset-2_walk_normal_002", "dataset-2_run_normal_001"],
    );
    let library = [dir.clone()];
    let session = |mirror: bool| {
        let (model, _, _) =
            stridescope::stage::retarget::library_model(None, &library, mirror).unwrap();
        MatchingSession::new_cached_by_content(&model, MatchingDef::default()).unwrap()
    };
    let first = session(false);
    let path = match &first.cache {
        // Written now, or by an earlier run of this test (the same content).
        CacheOutcome::Written(p) | CacheOutcome::Loaded(p) => p.clone(),
        CacheOutcome::Skipped(why) => panic!("not cached: {why}"),
    };
    assert!(path.starts_with(cache_dir()), "{}", path.display());
    assert!(path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("content-"));
    let second = session(false);
    assert_eq!(second.cache, CacheOutcome::Loaded(path.clone()));
    assert_eq!(first.db, second.db);
    let mirrored = session(true);
    match &mirrored.cache {
        CacheOutcome::Written(p) | CacheOutcome::Loaded(p) => assert_ne!(*p, path),
        CacheOutcome::Skipped(why) => panic!("not cached: {why}"),
    }
    assert_eq!(mirrored.db.frame_count(), 2 * first.db.frame_count());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A library without an idle (two walks and a run, mirrored too): standing, the character
/// holds its slowest frame instead of walking on between a take and its mirror (issue 39
/// saw 35 jumps and 8.9 m of travel in 18 s), then walks off when asked; the blends stay
/// small (inertialization offsets of centimetres, not metres).
#[test]
fn standing_without_an_idle_holds_still_and_walks_off_when_asked() {
    let dir = bandai_copies(
        "stridescope-mm-stand",
        &[
            "dataset-2_walk_normal_002",
            "dataset-2_walk_normal_004",
            "dataset-2_run_normal_001",
        ],
    );
    let scenario = dir.join("stand_then_walk.ron");
    std::fs::write(
        &scenario,
        "(fps: 60.0, seconds: 14.0, events: [\
         (at_secs: 0.0, action: Stand),\
         (at_secs: 8.0, action: Move(speed_mps: 1.3, heading_deg: 0.0)),\
         ])",
    )
    .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stridescope"));
    cmd.args([
        "trace",
        "--motion-matching",
        "--json",
        "--mirror",
        "--scenario",
    ])
    .arg(&scenario)
    .arg("--library")
    .arg(&dir);
    let r = json_of(&mut cmd);
    let frames = r["frames"].as_array().unwrap();
    let at = |f: &serde_json::Value| {
        (
            f["world_x_m"].as_f64().unwrap(),
            f["world_z_m"].as_f64().unwrap(),
        )
    };
    let (standing, walking): (Vec<&serde_json::Value>, Vec<&serde_json::Value>) = frames
        .iter()
        .partition(|f| f["desired_speed_mps"].as_f64().unwrap() == 0.0);
    assert!(
        (470..490).contains(&standing.len()),
        "{} frames standing",
        standing.len()
    );
    // Standing: held from the first frame, one jump (onto the held frame), no travel.
    assert!(standing.iter().all(|f| f["holding"] == true));
    let jumps = standing.iter().filter(|f| f["jumped"] == true).count();
    assert!(jumps <= 1, "{jumps} jumps while standing");
    let (a, b) = (at(standing[0]), at(standing[standing.len() - 1]));
    let travel = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
    assert!(travel < 0.01, "walked {travel} m standing");
    // Asked to walk, it leaves the hold at once and covers most of 6 s at 1.3 m/s.
    assert!(walking.iter().all(|f| f["holding"] == false));
    let (a, b) = (at(walking[0]), at(walking[walking.len() - 1]));
    let travel = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
    assert!(travel > 5.0, "walked only {travel} m in 6 s");
    // Every blend starts within a third of a leg and 120 degrees (a walk's arm swing
    // against a run's bent elbow is about 100).
    for f in frames {
        let (cm, deg) = (
            f["offset_cm"].as_f64().unwrap(),
            f["offset_deg"].as_f64().unwrap(),
        );
        assert!(
            cm < 30.0 && deg < 120.0,
            "frame {}: offset {cm} cm, {deg} degrees",
            f["frame"]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
