//! Nothing wider than its panel (issue 39 item 1): in every panel state a user meets, at
//! 1024x640 and 1400x860, the content of the left and right panels, the timeline and the
//! status bar is no wider than the panel that shows it (egui reports both widths each
//! frame: `app::ui::panel_fit`). What does not fit wraps, or scrolls sideways in its own
//! table; a line cut at a panel's edge fails here.

mod common;

use std::path::{Path, PathBuf};

use egui_kittest::kittest::{By, NodeT, Queryable};
use egui_kittest::Harness;
use stridescope::app::settings::Settings;
use stridescope::app::ui::{panel_fit, Previewer};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

const SIZES: [(f32, f32); 3] = [(960.0, 600.0), (1024.0, 640.0), (1400.0, 860.0)];
const PANELS: [&str; 4] = ["left", "right", "timeline", "status"];

fn harness(model: stridescope::asset::Model, size: (f32, f32)) -> Harness<'static, Previewer> {
    let previewer = Previewer::new(model, None, Settings::default());
    let mut h = Harness::builder()
        .with_size(egui::vec2(size.0, size.1))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(3);
    h
}

fn click(h: &mut Harness<'static, Previewer>, label: &str) {
    h.get_by_label(label).click();
    h.run_steps(3);
}

/// Every panel's content width against the panel's, as "state at WxH: panel content N
/// in M" for each that does not fit, with the widgets that reach past its edge.
fn misfits(h: &Harness<'static, Previewer>, state: &str, size: (f32, f32)) -> Vec<String> {
    PANELS
        .iter()
        .filter_map(|panel| {
            let (content, area) = panel_fit(&h.ctx, panel)
                .unwrap_or_else(|| panic!("{state}: panel {panel} not measured"));
            // A panel that grew past the window is as cut as content past the panel.
            if content <= area.width() + 0.5 && area.right() <= size.0 + 0.5 {
                return None;
            }
            let (left, right, top, bottom) = (
                f64::from(area.left()),
                f64::from(area.right()),
                f64::from(area.top()),
                f64::from(area.bottom()),
            );
            let past: Vec<String> = h
                .query_all(By::new().predicate(move |n| {
                    n.bounding_box().is_some_and(|b| {
                        b.x0 >= left - 1.0
                            && b.x0 < right
                            && b.x1 > right + 0.5
                            && b.y0 >= top
                            && b.y1 <= bottom
                    })
                }))
                .map(|n| {
                    let a = n.accesskit_node();
                    format!("    {:?} {:?} {:?}", a.role(), a.label(), a.value())
                })
                .collect();
            Some(format!(
                "{state} at {}x{}: {panel} content {content:.0} pt in {:.0} pt, the panel's \
                 right edge at {:.0}; past its edge:\n{}",
                size.0,
                size.1,
                area.width(),
                area.right(),
                past.join("\n")
            ))
        })
        .collect()
}

/// The states a user meets on the demo character, each from a fresh window.
/// A named way to bring a fresh window into one state.
type SetUp = (&'static str, fn(&mut Harness<'static, Previewer>));

fn demo_states() -> Vec<SetUp> {
    vec![
        ("demo as opened", |_| {}),
        ("walk with loop seam, compare and onion skin open", |h| {
            click(h, "Walk  (1.100 s)");
            click(h, "Loop seam");
            click(h, "A/B compare");
            click(h, "Onion skin");
        }),
        ("a joint selected with its curves", |h| {
            click(h, "Walk  (1.100 s)");
            h.state_mut().select_joint(Some(4));
            h.run_steps(3);
        }),
        ("pose graph with the edit section", |h| {
            click(h, "Play through the pose graph");
            click(h, "Edit graph");
        }),
        ("an additive layer", |h| {
            click(h, "Add layer");
            click(h, "Edit graph");
        }),
        ("driving", |h| {
            click(h, "Walk  (1.100 s)");
            click(h, "Drive (D)");
        }),
        ("motion matching demo", |h| {
            click(h, "File");
            click(h, "Open the motion-matching demo");
            for _ in 0..30 {
                h.state_mut().advance(1.0 / 60.0);
            }
            h.run_steps(3);
        }),
    ]
}

#[test]
fn every_panel_fits_on_the_demo() {
    let mut bad = Vec::new();
    for size in SIZES {
        // Onion skin on from the first frame, as `--onion 2` starts it (the opacity slider
        // once pushed the right panel 70 pt wider than itself at 960x600).
        let mut previewer = Previewer::new(
            stridescope::asset::load_or_demo(None).unwrap(),
            None,
            Settings::default(),
        );
        previewer.inspect.onion.enabled = true;
        previewer.inspect.onion.before = 2;
        previewer.inspect.onion.after = 2;
        let mut h = Harness::builder()
            .with_size(egui::vec2(size.0, size.1))
            .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
        h.run_steps(3);
        click(&mut h, "Walk  (1.100 s)");
        bad.extend(misfits(&h, "onion skin from the start", size));
        for (state, set_up) in demo_states() {
            let mut h = harness(stridescope::asset::load_or_demo(None).unwrap(), size);
            set_up(&mut h);
            bad.extend(misfits(&h, state, size));
        }
    }
    assert!(
        bad.is_empty(),
        "content wider than its panel:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_panel_fits_with_a_retarget_fbx_joints_and_morphs() {
    let mut bad = Vec::new();
    for size in SIZES {
        // The Robot with a Bandai take retargeted onto it: the retarget panel and its
        // warning (the Robot's feet stray from the scaled actor's).
        let robot = stridescope::asset::load(&shared("assets/Robot/robot.glb")).unwrap();
        let mut h = harness(robot, size);
        h.state_mut()
            .retarget_from(&shared("mocap/bandai/dataset-2_walk_normal_002.bvh"))
            .unwrap();
        h.run_steps(3);
        bad.extend(misfits(&h, "Robot with a retarget", size));
        // The library view of the Robot's 14 clips: its bar in place of the timeline.
        let robot = stridescope::asset::load(&shared("assets/Robot/robot.glb")).unwrap();
        let mut h = harness(robot, size);
        h.key_press(egui::Key::G);
        h.run_steps(3);
        assert!(h.state().library_view().is_some());
        bad.extend(misfits(&h, "the Robot's library view", size));
        // An FBX in centimetres with a joint selected: the joint details.
        let fbx =
            stridescope::asset::load(&shared("fbx/ufbx/maya_game_sausage_7500_binary_wiggle.fbx"))
                .unwrap();
        let mut h = harness(fbx, size);
        h.state_mut().select_joint(Some(2));
        h.run_steps(3);
        bad.extend(misfits(&h, "an FBX joint selected", size));
        // Blender's shape keys: the morph-target sliders.
        let morphs = stridescope::asset::load(&shared(
            "fbx/ufbx/blender440_shape_weight_anim_7400_binary.fbx",
        ))
        .unwrap();
        assert!(!morphs.meshes.iter().all(|m| m.target_names.is_empty()));
        let h = harness(morphs, size);
        bad.extend(misfits(&h, "morph targets", size));
    }
    assert!(
        bad.is_empty(),
        "content wider than its panel:\n{}",
        bad.join("\n")
    );
}

/// A single take whose name is wider than the left panel (the Bandai left turn): the
/// Additive row's "over <name>" once pushed the frame field and Add layer out of the
/// panel at 1024x640.
#[test]
fn every_panel_fits_with_a_take_named_wider_than_the_panel() {
    let mut bad = Vec::new();
    for size in SIZES {
        let take = stridescope::asset::load(&shared(
            "mocap/bandai/dataset-2_walk-turn-left_normal_002.bvh",
        ))
        .unwrap();
        let h = harness(take, size);
        h.get_by_label("Add layer");
        bad.extend(misfits(&h, "one long-named take", size));
    }
    assert!(
        bad.is_empty(),
        "content wider than its panel:\n{}",
        bad.join("\n")
    );
}

/// Small plots keep their legend in a row above them, not inside (where egui_plot's
/// covered a third of a 90-point plot): each name once, as a plain label (egui_plot's
/// legend entries are a second, clickable node).
#[test]
fn plot_legends_are_rows_outside_their_plots() {
    let model = stridescope::asset::load_or_demo(None).unwrap();
    let mut h = harness(model, (1024.0, 640.0));
    click(&mut h, "Walk  (1.100 s)");
    click(&mut h, "Drive (D)");
    h.run_steps(30);
    for name in [
        "skate threshold",
        "play rate",
        "stride scale",
        "left",
        "right",
    ] {
        let nodes: Vec<_> = h.query_all_by_label(name).collect();
        assert_eq!(nodes.len(), 1, "'{name}' {} times", nodes.len());
        assert_eq!(
            nodes[0].accesskit_node().role(),
            egui::accesskit::Role::Label
        );
    }
}
