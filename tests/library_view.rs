//! The library view (issue 23): every clip of a character at once in a grid, in place,
//! each looping at its own length, evaluated one job per character; the hovered one
//! larger; a click opens its clip. On the Robot's own clips, the 482 Bandai takes
//! retargeted onto the Robot, and a folder mixing glTF and BVH files.

use std::path::{Path, PathBuf};

use egui::Key;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use glam::{Vec2, Vec3};
use stridescope::app::settings::Settings;
use stridescope::app::ui::Previewer;
use stridescope::asset::Model;
use stridescope::stage::library::{ClipGrid, ENLARGED_SCALE};

mod common;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

fn robot() -> Model {
    stridescope::asset::load(&shared("assets/Robot/robot.glb")).unwrap()
}

/// The largest horizontal distance of joint `joint` from its cell's centre, over all
/// cells, as the grid plays `secs` seconds at 30 frames a second.
fn farthest_from_cell(grid: &mut ClipGrid, model: &Model, joint: usize, secs: f64) -> f32 {
    let mut worst = 0.0f32;
    for frame in 0..(secs * 30.0) as usize {
        grid.evaluate(model, frame as f64 / 30.0);
        for (cell, pose) in grid.poses().enumerate() {
            let at = pose.model_from_joint[joint].w_axis.truncate();
            let c = grid.center(cell).unwrap();
            worst = worst.max(Vec2::new(at.x - c.x, at.z - c.z).length());
        }
    }
    worst
}

fn hips(model: &Model) -> usize {
    let names = model.skeleton.names();
    names
        .iter()
        .position(|n| n.to_lowercase().contains("hips"))
        .unwrap_or_else(|| panic!("no hips in {names:?}"))
}

#[test]
fn every_robot_clip_plays_in_place_in_its_own_cell() {
    let model = robot();
    let n = model.clips.len();
    let mut grid = ClipGrid::new(&model).unwrap();
    assert_eq!(grid.len(), n);
    // A square grid: ceil(sqrt(n)) columns.
    let columns = (n as f64).sqrt().ceil() as usize;
    assert_eq!(grid.columns(), columns);
    // Cells one spacing apart, centred on the origin, rows along +z.
    let d = grid.center(1).unwrap() - grid.center(0).unwrap();
    assert!((d - Vec3::X * grid.spacing_m()).length() < 1e-5, "{d}");
    let d = grid.center(columns).unwrap() - grid.center(0).unwrap();
    assert!((d - Vec3::Z * grid.spacing_m()).length() < 1e-5, "{d}");
    let (lo, hi) = grid.bounds();
    assert!((lo.x + hi.x).abs() < 1e-4 && lo.y == 0.0, "{lo} {hi}");
    // Every hips stays within a quarter cell of its centre (the cells are 1.4 times the
    // rest pose's width apart), so no two characters overlap. (The Robot's clips are in
    // place; the Bandai test below is the one whose takes travel.)
    let hips = hips(&model);
    let worst = farthest_from_cell(&mut grid, &model, hips, 3.0);
    assert!(
        worst < 0.25 * grid.spacing_m(),
        "hips {worst} m from the cell centre (spacing {} m)",
        grid.spacing_m()
    );
    assert!(grid.failure().is_none(), "{:?}", grid.failure());
}

#[test]
fn each_cell_loops_at_its_own_length_and_threads_change_nothing() {
    let model = robot();
    // The shortest and the longest clip (cells that loop at different lengths).
    let by_length = |a: &usize, b: &usize| {
        model.clips[*a]
            .duration_secs()
            .total_cmp(&model.clips[*b].duration_secs())
    };
    let walk = (0..model.clips.len()).min_by(by_length).unwrap();
    let run = (0..model.clips.len()).max_by(by_length).unwrap();
    let (dw, dr) = (
        f64::from(model.clips[walk].duration_secs()),
        f64::from(model.clips[run].duration_secs()),
    );
    assert!((dw - dr).abs() > 0.05, "shortest {dw} s, longest {dr} s");
    let mut grid = ClipGrid::new(&model).unwrap();
    let mut other = ClipGrid::new(&model).unwrap();
    let cell_of = |clip| {
        (0..grid.len())
            .find(|&c| grid.clip(c) == Some(clip))
            .unwrap()
    };
    let (cw, cr) = (cell_of(walk), cell_of(run));
    let snapshot =
        |g: &ClipGrid, cell: usize| g.poses().nth(cell).unwrap().model_from_joint.clone();
    let t = 0.37;
    grid.evaluate(&model, t);
    let (w0, r0) = (snapshot(&grid, cw), snapshot(&grid, cr));
    // One cycle of the short clip later it is where it was; the long one is not.
    grid.evaluate(&model, t + dw);
    let close = |a: &[glam::Mat4], b: &[glam::Mat4]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x.w_axis - y.w_axis).length())
            .fold(0.0f32, f32::max)
    };
    assert!(close(&w0, &snapshot(&grid, cw)) < 1e-3);
    assert!(close(&r0, &snapshot(&grid, cr)) > 0.01);
    grid.evaluate(&model, t + dr);
    assert!(close(&r0, &snapshot(&grid, cr)) < 1e-3);
    // Half a cycle of the short one later, it has moved on.
    grid.evaluate(&model, t + 0.5 * dw);
    assert!(close(&w0, &snapshot(&grid, cw)) > 0.01);
    // The parallel evaluation (four threads, whatever the machine has) is the
    // sequential one, bit for bit.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    for time in [0.0, 0.51, 2.9] {
        pool.install(|| grid.evaluate(&model, time));
        other.evaluate_sequential(&model, time);
        for (a, b) in grid.poses().zip(other.poses()) {
            assert_eq!(a.model_from_joint, b.model_from_joint);
            assert_eq!(a.skin_palettes, b.skin_palettes);
        }
    }
}

#[test]
fn the_enlarged_character_is_drawn_larger_about_its_feet() {
    let model = robot();
    let mut grid = ClipGrid::new(&model).unwrap();
    let top = |g: &ClipGrid, cell: usize| {
        g.poses()
            .nth(cell)
            .unwrap()
            .model_from_joint
            .iter()
            .map(|m| m.w_axis.y)
            .fold(f32::MIN, f32::max)
    };
    // Every joint's offset from the cell's foot point (centre, on the ground).
    let offsets = |g: &ClipGrid, cell: usize| -> Vec<Vec3> {
        let c = g.center(cell).unwrap();
        g.poses()
            .nth(cell)
            .unwrap()
            .model_from_joint
            .iter()
            .map(|m| m.w_axis.truncate() - c)
            .collect()
    };
    grid.evaluate(&model, 0.8);
    let (plain, neighbour) = (top(&grid, 2), top(&grid, 3));
    let plain_offsets = offsets(&grid, 2);
    grid.set_enlarged(Some(2));
    grid.evaluate(&model, 0.8);
    assert!(
        (top(&grid, 2) / plain - ENLARGED_SCALE).abs() < 1e-4,
        "{} vs {plain}",
        top(&grid, 2)
    );
    // Scaled about its own feet: every joint 1.6 times as far from the cell's centre,
    // sideways too (a scale about the world origin would move it out of its cell).
    for (big, small) in offsets(&grid, 2).iter().zip(&plain_offsets) {
        assert!(
            (*big - *small * ENLARGED_SCALE).length() < 1e-4,
            "{big} vs {small}"
        );
    }
    assert_eq!(top(&grid, 3), neighbour, "only the hovered one grows");
    assert!(grid.label_anchor(2).unwrap().y > grid.label_anchor(3).unwrap().y);
    // A cell past the end enlarges nothing.
    grid.set_enlarged(Some(grid.len()));
    assert_eq!(grid.enlarged(), None);
}

/// Issue 23's scale test: the 482 shared Bandai takes on the Robot, one per cell.
#[test]
fn the_bandai_library_plays_on_the_robot_one_take_per_cell() {
    let (model, files, _) = stridescope::stage::retarget::library_model(
        Some(&shared("assets/Robot/robot.glb")),
        &[shared("mocap/bandai")],
        false,
    )
    .unwrap();
    assert_eq!(files, 482);
    let mut grid = ClipGrid::new(&model).unwrap();
    assert_eq!(grid.len(), 482);
    assert_eq!(grid.columns(), 22);
    assert_eq!(grid.label(0), model.clips[0].name());
    assert!(
        grid.label(481).starts_with("dataset-"),
        "{}",
        grid.label(481)
    );
    // The takes walk, run and turn across metres; in the grid every hips stays in its
    // cell for two seconds of playback.
    let hips = hips(&model);
    let worst = farthest_from_cell(&mut grid, &model, hips, 2.0);
    assert!(
        worst < 0.5 * grid.spacing_m(),
        "hips {worst} m from the cell centre (spacing {} m)",
        grid.spacing_m()
    );
    assert!(grid.failure().is_none(), "{:?}", grid.failure());
    for pose in grid.poses() {
        assert!(pose.skin_palettes.iter().flatten().all(|m| m.is_finite()));
    }
    // Every cell plays its own take: the hips heights over the grid are not one pose
    // repeated.
    let mut heights: Vec<i32> = grid
        .poses()
        .map(|p| (p.model_from_joint[hips].w_axis.y * 1e4) as i32)
        .collect();
    heights.sort_unstable();
    heights.dedup();
    assert!(
        heights.len() > 300,
        "{} distinct hips heights",
        heights.len()
    );
}

/// A library folder takes every format the importer reads: a glTF character's clips and
/// BVH takes, each retargeted onto the Robot; a folder without clips says so.
#[test]
fn a_folder_of_gltf_and_bvh_files_becomes_one_library() {
    let dir = std::env::temp_dir().join(format!("stridescope-library-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        shared("assets/CesiumMan/CesiumMan.glb"),
        dir.join("CesiumMan.glb"),
    )
    .unwrap();
    for take in ["dataset-2_walk_normal_002", "dataset-2_run_normal_001"] {
        std::fs::copy(
            shared(&format!("mocap/bandai/{take}.bvh")),
            dir.join(format!("{take}.bvh")),
        )
        .unwrap();
    }
    // A broken glTF file in the folder is skipped with a warning, not the end of it.
    std::fs::write(dir.join("broken.glb"), b"glTF\x02\x00\x00\x00not a file").unwrap();
    let (model, files, _) = stridescope::stage::retarget::library_model(
        Some(&shared("assets/Robot/robot.glb")),
        std::slice::from_ref(&dir),
        false,
    )
    .unwrap();
    assert_eq!(files, 4);
    assert!(
        model
            .warnings
            .iter()
            .any(|w| w.contains("broken.glb") && w.contains("skipped")),
        "{:?}",
        model.warnings
    );
    let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
    let cesium = stridescope::asset::load(&shared("assets/CesiumMan/CesiumMan.glb")).unwrap();
    assert_eq!(names.len(), 2 + cesium.clips.len(), "{names:?}");
    assert!(names.contains(&"dataset-2_walk_normal_002"), "{names:?}");
    assert!(names.contains(&cesium.clips[0].name()), "{names:?}");
    assert_eq!(model.skeleton.names(), robot().skeleton.names());
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = stridescope::stage::retarget::library_model(
        Some(&shared("assets/Robot/robot.glb")),
        &[empty],
        false,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no clip found") && e.contains(".glb"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn harness(model: Model) -> Harness<'static, Previewer> {
    let previewer = Previewer::new(model, None, Settings::default());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    h
}

/// Where cell `cell`'s character stands on screen (points), half way up.
fn cell_on_screen(h: &Harness<'static, Previewer>, cell: usize) -> egui::Pos2 {
    let viewport = h.get_by_label("3D viewport").rect();
    let p = h.state();
    let v = p.library_view().unwrap();
    let [w, hgt] = p.viewport_size_px();
    let size = Vec2::new(w as f32, hgt as f32);
    let clip_from_world = p.view.camera.clip_from_world(size.x / size.y);
    let mid = (v.grid.center(cell).unwrap() + v.grid.label_anchor(cell).unwrap()) * 0.5;
    let px = stridescope::render::camera::world_to_pixel(&clip_from_world, mid, size).unwrap();
    viewport.min + egui::vec2(px.x, px.y)
}

/// The window's library view: G opens it on the open character's clips, Space pauses,
/// hovering a character enlarges it and shows its name, a click opens its clip, Esc
/// leaves with the camera as it was.
#[test]
fn the_library_view_opens_hovers_and_opens_a_clip() {
    let model = robot();
    let n = model.clips.len();
    let mut h = harness(model);
    h.key_press(Key::G);
    h.run_steps(2);
    let v = h.state().library_view().expect("G opens the library view");
    assert_eq!(v.grid.len(), n);
    assert!(v.playing && h.state().is_animating());
    // Playback moves the grid's clock, not the character's.
    let clip_time = h.state().stage.main.timeline.time_secs();
    h.state_mut().advance(0.5);
    assert!((h.state().library_view().unwrap().time_secs - 0.5).abs() < 1e-9);
    assert_eq!(h.state().stage.main.timeline.time_secs(), clip_time);
    let timeline_playing = h.state().stage.main.timeline.is_playing();
    h.key_press(Key::Space);
    h.run_steps(1);
    assert!(!h.state().library_view().unwrap().playing);
    assert_eq!(
        h.state().stage.main.timeline.is_playing(),
        timeline_playing,
        "Space in the library view is the grid's, not the timeline's"
    );
    h.state_mut().advance(0.5);
    assert!((h.state().library_view().unwrap().time_secs - 0.5).abs() < 1e-9);
    // The bar replaces the timeline.
    h.get_by_label("Close the grid  (Esc)");
    // Hover cell 4: it grows and its name shows in full.
    let target = 4;
    let at = cell_on_screen(&h, target);
    h.event(egui::Event::PointerMoved(at));
    h.run_steps(2);
    assert_eq!(
        h.state().library_view().unwrap().grid.enlarged(),
        Some(target)
    );
    let name = h.state().model().clips
        [h.state().library_view().unwrap().grid.clip(target).unwrap()]
    .name()
    .to_string();
    // Away from every character: nothing is enlarged.
    let corner = h.get_by_label("3D viewport").rect().min + egui::vec2(5.0, 5.0);
    h.event(egui::Event::PointerMoved(corner));
    h.run_steps(2);
    assert_eq!(h.state().library_view().unwrap().grid.enlarged(), None);
    // A click opens that clip, playing, and leaves the grid (the timeline paused first,
    // so the play is the click's).
    h.state_mut()
        .transport(stridescope::app::controller::Transport::Play(false));
    let at = cell_on_screen(&h, target);
    common::click_at(&mut h, at);
    assert!(h.state().library_view().is_none());
    let clip = h.state().stage.main.timeline.clip().unwrap();
    assert_eq!(h.state().model().clips[clip].name(), name);
    assert!(h.state().stage.main.timeline.is_playing());
    // G again, then Esc: the camera is where it was before the grid.
    let camera_before = h.state().view.camera;
    h.key_press(Key::G);
    h.run_steps(2);
    assert!(h.state().library_view().is_some());
    h.key_press(Key::Escape);
    h.run_steps(2);
    assert!(h.state().library_view().is_none());
    assert_eq!(h.state().view.camera, camera_before);
    // View > Library view opens it too.
    h.get_by_label("View").click();
    h.run_steps(3);
    h.get_by_label("Library view: every clip at once  (G)")
        .click();
    h.run_steps(2);
    assert!(h.state().library_view().is_some());
}

/// A character without clips has no library view: the status bar says why and the
/// character stays.
#[test]
fn a_character_without_clips_says_why_it_has_no_library_view() {
    let mut model = robot();
    model.clips.clear();
    model.analysis = Default::default();
    let mut h = harness(model);
    h.key_press(Key::G);
    h.run_steps(2);
    assert!(h.state().library_view().is_none());
    let m = h.state().message().unwrap();
    assert!(
        m.is_error && m.text.contains("has no animations"),
        "{}",
        m.text
    );
}

/// One rule for what the grid shows, however it opens: the clip list's clips in its
/// order, hidden ones left out (a hidden clip is not in the grid; moved up, it leads).
#[test]
fn the_grid_shows_the_clip_list_in_its_order() {
    let model = robot();
    let names: Vec<String> = model.clips.iter().map(|c| c.name().to_string()).collect();
    let n = names.len();
    assert!(n >= 4, "{names:?}");
    // Edits need a file to keep them beside: a copy of the Robot in a fresh folder.
    let dir = std::env::temp_dir().join(format!("stridescope-grid-rule-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("robot.glb");
    std::fs::copy(shared("assets/Robot/robot.glb"), &path).unwrap();
    let previewer = Previewer::new(robot(), Some(path), Settings::default());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    h.state_mut().set_clip_hidden(1, true).unwrap();
    h.state_mut().move_clip(n - 1, -(n as isize)).unwrap();
    h.key_press(Key::G);
    h.run_steps(2);
    let v = h.state().library_view().unwrap();
    let shown: Vec<&str> = (0..v.grid.len())
        .map(|c| names[v.grid.clip(c).unwrap()].as_str())
        .collect();
    let mut expected: Vec<&str> = vec![names[n - 1].as_str(), names[0].as_str()];
    expected.extend(names[2..n - 1].iter().map(String::as_str));
    assert_eq!(shown, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Another file replacing the character closes the library view, the camera as it was
/// before the grid; a reload of the same file shows the grid again.
#[test]
fn opening_another_file_closes_the_library_view_and_a_reload_keeps_it() {
    let path = shared("assets/Robot/robot.glb");
    let previewer = Previewer::new(robot(), Some(path.clone()), Settings::default());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    let camera_before = h.state().view.camera;
    h.key_press(Key::G);
    h.run_steps(2);
    assert_ne!(h.state().view.camera, camera_before, "the grid is framed");
    // A reload (the file changed on disk): the grid again, on the new model.
    h.state_mut().replace_model(robot(), Some(path));
    h.run_steps(2);
    let v = h
        .state()
        .library_view()
        .expect("a reload keeps the library view");
    assert_eq!(v.grid.len(), h.state().model().clips.len());
    // Another character: the view closes.
    let fox = stridescope::asset::load(&shared("assets/Fox/Fox.glb")).unwrap();
    h.state_mut()
        .replace_model(fox, Some(shared("assets/Fox/Fox.glb")));
    assert!(h.state().library_view().is_none());
    h.run_steps(2);
    h.key_press(Key::G);
    h.run_steps(2);
    assert_eq!(h.state().library_view().unwrap().grid.len(), 3);
}

/// File > Open a folder as a library, through the in-app browser (where no desktop portal
/// answers): the menu asks the window for the dialog; the browser shows the folder's
/// takes and "Show this folder as a library"; the takes are retargeted onto the open
/// character on a worker thread with a progress bar, then the grid opens on them.
#[test]
fn a_folder_opens_as_a_library_from_the_file_menu() {
    use stridescope::app::controller::Action;
    use stridescope::app::file_browser::Purpose;
    let dir = std::env::temp_dir().join(format!("stridescope-ui-library-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // In the folder's (alphabetical) order, as the grid shows them.
    let takes = ["dataset-2_run_normal_001", "dataset-2_walk_normal_002"];
    for take in takes {
        std::fs::copy(
            shared(&format!("mocap/bandai/{take}.bvh")),
            dir.join(format!("{take}.bvh")),
        )
        .unwrap();
    }
    let mut h = harness(robot());
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Open a folder as a library…").click();
    h.run_steps(1);
    assert_eq!(
        h.state_mut().take_actions(),
        vec![Action::OpenLibraryDialog]
    );
    // The window opens the in-app browser when no portal answers.
    h.state_mut().open_file_browser_for(Purpose::Library);
    h.state_mut()
        .view
        .windows
        .file_browser
        .as_mut()
        .unwrap()
        .go_to(&dir);
    h.run_steps(2);
    h.get_by_label("Show a folder of clips as a library (glTF, FBX, BVH)");
    h.get_by_label("Show this folder as a library").click();
    h.run_steps(1);
    assert!(
        h.state().view.windows.file_browser.is_none(),
        "the browser closes"
    );
    assert!(h.state().is_loading());
    h.run_steps(1);
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        h.query_by_label_contains(&format!("loading {name}:"))
            .is_some(),
        "no progress in the status bar"
    );
    let started = std::time::Instant::now();
    while !h.state_mut().poll_pending_load() {
        assert!(
            started.elapsed().as_secs() < 120,
            "the library never finished"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
    let v = h
        .state()
        .library_view()
        .expect("the grid opens on the library");
    assert_eq!(v.grid.len(), 2);
    let labels: Vec<&str> = (0..2).map(|c| v.grid.label(c)).collect();
    assert_eq!(labels, takes.to_vec());
    // On the Robot's skeleton: retargeted, not the takes' own rig.
    assert_eq!(h.state().model().skeleton.names(), robot().skeleton.names());
    assert!(h
        .state()
        .message_log()
        .any(|m| m.text == "the library: 2 clips from 2 files"));
    // Its outcome is not a start-up library's: nothing waits for it.
    assert!(h.state_mut().take_library_outcome().is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The library bar's filter: typing part of a name lays out only the clips that have it
/// (any case), framed; a click on one opens that clip; an empty filter shows all again.
#[test]
fn the_filter_shows_only_the_clips_whose_names_match() {
    let model = robot();
    let all = model.clips.len();
    let runs: Vec<String> = model
        .clips
        .iter()
        .map(|c| c.name().to_string())
        .filter(|n| n.to_lowercase().contains("run"))
        .collect();
    assert!(!runs.is_empty() && runs.len() < all, "{runs:?}");
    let mut h = harness(model);
    h.key_press(Key::G);
    h.run_steps(2);
    h.get_by_label("filter by name").click();
    h.run_steps(1);
    h.get_by_label("filter by name").type_text("RUN");
    h.run_steps(2);
    let v = h.state().library_view().unwrap();
    assert_eq!(v.filter, "RUN");
    let shown: Vec<&str> = (0..v.grid.len()).map(|c| v.grid.label(c)).collect();
    assert_eq!(shown, runs.iter().map(String::as_str).collect::<Vec<_>>());
    h.get_by_label_contains(&format!("{} of {all} clips", runs.len()));
    // The first cell of the filtered grid opens its own clip.
    let at = cell_on_screen(&h, 0);
    common::click_at(&mut h, at);
    let clip = h.state().stage.main.timeline.clip().unwrap();
    assert_eq!(h.state().model().clips[clip].name(), runs[0]);
    // Back in the grid, no filter: every clip.
    h.key_press(Key::G);
    h.run_steps(2);
    assert_eq!(h.state().library_view().unwrap().grid.len(), all);
    h.state_mut().set_library_filter("no such clip");
    let v = h.state().library_view().unwrap();
    assert!(v.grid.is_empty());
    h.run_steps(2);
    h.get_by_label_contains(&format!("0 of {all} clips"));
}

/// Raw capture takes (no retargeting: the folder is the character) start wherever the
/// actor stood in the capture volume, metres from the origin and facing any way; in the
/// grid each stands on its own cell all the same.
#[test]
fn raw_capture_takes_stand_on_their_cells() {
    let dir = std::env::temp_dir().join(format!("stridescope-library-raw-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for take in [
        "dataset-2_walk_normal_002",
        "dataset-2_run_normal_001",
        "dataset-2_walk-turn-left_active_002",
    ] {
        std::fs::copy(
            shared(&format!("mocap/bandai/{take}.bvh")),
            dir.join(format!("{take}.bvh")),
        )
        .unwrap();
    }
    let model = stridescope::asset::folder::load_folder(
        &dir,
        &stridescope::asset::LoadOptions::default(),
        &|_, _| {},
    )
    .unwrap();
    assert_eq!(model.clips.len(), 3);
    let hips = hips(&model);
    // Where the takes start, as recorded: far from any cell of a 2x2 grid.
    let starts: Vec<f32> = (0..3)
        .map(|c| {
            let p = stridescope::stage::pose::pose_at(&model, Some(c), 0.0).unwrap();
            let at = p.model_from_joint[hips].w_axis;
            Vec2::new(at.x, at.z).length()
        })
        .collect();
    let mut grid = ClipGrid::new(&model).unwrap();
    assert!(
        starts.iter().any(|&d| d > 2.0 * grid.spacing_m()),
        "starts {starts:?}, spacing {}",
        grid.spacing_m()
    );
    let worst = farthest_from_cell(&mut grid, &model, hips, 2.0);
    assert!(
        worst < 0.25 * grid.spacing_m(),
        "hips {worst} m from the cell centre (spacing {} m)",
        grid.spacing_m()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The grid as the window draws it (`SceneBuilder::draw_crowd`, on lavapipe in CI): the
/// Robot's 14 clips in one dispatch show orange robots across the image; a filter that
/// matches nothing draws the ground and background alone, without an error.
#[test]
fn the_crowd_renders_every_character_and_an_empty_grid_renders_the_ground() {
    use stridescope::render::scene::{Crowd, OnGpu};
    use stridescope::render::{render_to_image, Aabb, Grid, Renderer, SceneBuilder};
    let Some(ctx) = common::gpu() else { return };
    let model = robot();
    let mut renderer = Renderer::new(&ctx, stridescope::render::OFFSCREEN_FORMAT).unwrap();
    let gpu_model = renderer.upload_model(&ctx, &model).unwrap();
    let mut grid = ClipGrid::new(&model).unwrap();
    grid.evaluate(&model, 0.5);
    let mut instances = renderer
        .create_instances(&ctx, &gpu_model, grid.len() as u32)
        .unwrap();
    let (lo, hi) = grid.bounds();
    let camera = stridescope::render::framed_camera(&Aabb { min: lo, max: hi }, 1.5);
    let poses: Vec<&stridescope::stage::pose::Pose> = grid.poses().collect();
    let (w, h) = (480, 320);
    let mut builder = SceneBuilder::new();
    let crowd = Crowd {
        camera,
        grid: Some(Grid::for_bounds(lo, hi)),
        gpu: Some(OnGpu {
            model: &gpu_model,
            instances: &mut instances,
            upload: 1,
        }),
        poses: &poses,
    };
    let image = builder
        .draw_crowd(&ctx, &mut renderer, crowd, |r, scene| {
            render_to_image(&ctx, r, w, h, scene)
        })
        .unwrap();
    let orange = |img: &stridescope::render::RgbaImage, x0: u32, x1: u32| {
        (x0..x1)
            .flat_map(|x| (0..h).map(move |y| (x, y)))
            .filter(|&(x, y)| {
                let p = img.pixel(x, y);
                p[0] > 180 && p[1] > 100 && p[1] < 200 && p[2] < 110
            })
            .count()
    };
    // Robots in the left and the right third: the whole grid is drawn, not one cell.
    let (left, right) = (orange(&image, 0, w / 3), orange(&image, 2 * w / 3, w));
    eprintln!("{left} / {right} orange px");
    assert!(left > 40 && right > 40, "{left} / {right} orange px");
    // No clip matches: the same call with no poses draws no robot.
    let empty = ClipGrid::of_clips(&model, &[]).unwrap();
    assert!(empty.is_empty());
    let crowd: Crowd<'_, stridescope::stage::pose::Pose> = Crowd {
        camera,
        grid: Some(Grid::for_bounds(lo, hi)),
        gpu: None,
        poses: &[],
    };
    let image = builder
        .draw_crowd(&ctx, &mut renderer, crowd, |r, scene| {
            render_to_image(&ctx, r, w, h, scene)
        })
        .unwrap();
    assert_eq!(orange(&image, 0, w), 0);
    ctx.check().unwrap();
}

/// Opening a clip from the grid (issue 39 item 9): the clip list scrolls to it and shows
/// it selected, and the grid's "Esc to leave" no longer stands in the status bar.
#[test]
fn a_clip_opened_from_the_grid_shows_in_the_clip_list() {
    let model = robot();
    let last = model.clips.len() - 1;
    let name = model.clips[last].name().to_string();
    let previewer = Previewer::new(model, None, Settings::default());
    // Short enough that the 14 clips do not all fit in the list.
    let mut h = Harness::builder()
        .with_size(egui::vec2(1024.0, 640.0))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    h.key_press(Key::G);
    h.run_steps(3);
    assert!(h
        .state()
        .message()
        .unwrap()
        .text
        .starts_with("library view:"));
    let cell = (0..h.state().library_view().unwrap().grid.len())
        .find(|&c| h.state().library_view().unwrap().grid.clip(c) == Some(last))
        .unwrap();
    h.state_mut().open_library_cell(cell);
    h.run_steps(6);
    assert_eq!(h.state().stage.main.timeline.clip(), Some(last));
    let row = h.get_by_label_contains(&format!("{name}  (")).rect();
    let top = h.get_by_label("Clips").rect().max.y;
    let bottom = h.get_by_label("Joints").rect().min.y;
    assert!(
        row.min.y >= top && row.max.y <= bottom,
        "the row {row:?} is outside the list ({top}..{bottom})"
    );
    assert!(
        !h.state().message().unwrap().text.contains("Esc to leave"),
        "{}",
        h.state().message().unwrap().text
    );
}
