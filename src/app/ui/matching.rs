//! Motion matching's debugger: the panel (what plays, why: the best candidates with
//! their per-group costs heat-mapped, the weights and continuity settings) and the
//! timeline track of the recording (which clip played when, the jumps, a scrub bar that
//! replays recorded frames). The state lives in the controller ([`MatchingPlay`], the controller's source).

use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2};

use super::Previewer;
use crate::anim::motion_matching::FEATURE_GROUPS;
use crate::controller::{StageCommand, ViewCommand};

/// Short column titles of the feature groups (full names in the hover text).
const GROUP_TITLES: [&str; 6] = [
    "foot pos", "foot vel", "hip vel", "traj pos", "traj dir", "past",
];

/// A stable colour per clip for the timeline track.
pub fn clip_color(clip: usize) -> Color32 {
    const PALETTE: [[u8; 3]; 14] = [
        [86, 180, 233],
        [230, 159, 0],
        [0, 158, 115],
        [240, 228, 66],
        [204, 121, 167],
        [213, 94, 0],
        [0, 114, 178],
        [170, 170, 170],
        [153, 102, 51],
        [255, 120, 120],
        [160, 150, 255],
        [110, 60, 160],
        [200, 200, 110],
        [60, 200, 200],
    ];
    let [r, g, b] = PALETTE[clip % PALETTE.len()];
    Color32::from_rgb(r, g, b)
}

fn heat(value: f32, full: f32) -> Color32 {
    let [r, g, b] = crate::stage::inspect::heat_color(value, full);
    Color32::from_rgb(r, g, b)
}

/// The right-panel section: on/off, the live readout, the candidates and the settings.
pub(super) fn matching_panel_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    egui::CollapsingHeader::new("Motion matching")
        .default_open(true)
        .show(ui, |ui| {
            let mut on = p.matching().is_some();
            if ui
                .checkbox(&mut on, "On (M)")
                .on_hover_text(
                    "Drive the character with motion matching over the file's locomotion clips: \
                     WASD or arrows move (relative to the camera), Shift runs, Ctrl strafes, \
                     Space pauses, and the timeline scrubs what was recorded",
                )
                .changed()
            {
                p.set_matching_enabled(on);
            }
            if p.matching().is_none() {
                if p.stage.main.path.is_none() && p.stage.main.model.clips.len() < 8 {
                    ui.weak("The demo's locomotion set: File > Open the motion-matching demo.");
                }
                return;
            }
            readout_ui(p, ui);
            ui.separator();
            candidates_ui(p, ui);
            ui.separator();
            settings_ui(p, ui);
        });
}

fn readout_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(m) = p.matching() else {
        return;
    };
    let s = &m.session;
    ui.label(format!(
        "{} clips, {} frames × {} features",
        s.db.clips().len(),
        s.db.frame_count(),
        s.db.dims()
    ));
    let Some(f) = s.current() else {
        return;
    };
    let name = p.stage.main.model.clips[f.clip].name();
    let db_frame = s.db.nearest_frame(f.source, f.clip_time_secs);
    if let (true, Some(stand)) = (f.holding, s.matcher().standing()) {
        ui.add(
            egui::Label::new(format!(
                "Standing: no frame of these clips stands (the slowest moves {:.2} m/s), so \
                 {name} holds at {:.2} s{} until you move.",
                stand.speed_mps,
                f.clip_time_secs,
                if stand.feet_down {
                    ", both feet planted"
                } else {
                    ""
                }
            ))
            .wrap(),
        );
    }
    // Name and value on one line that wraps (a table cut the clip's name at the edge).
    let row = |ui: &mut egui::Ui, name: &str, value: String| {
        ui.add(egui::Label::new(format!("{name}: {value}")).wrap())
    };
    row(
        ui,
        "Playing",
        format!(
            "{name} at {:.3} s (database frame {db_frame})",
            f.clip_time_secs
        ),
    );
    row(ui, "Since jump", format!("{:.2} s", f.since_jump_secs));
    row(
        ui,
        "Trajectory error",
        format!("{:.3} m", f.trajectory_error_m),
    )
    .on_hover_text("distance between the character and the simulated point it follows");
    row(
        ui,
        "Inertialization",
        format!(
            "{:.1} cm, {:.1}° left",
            f.offset_remaining.0 * 100.0,
            f.offset_remaining.1.to_degrees()
        ),
    );
    let n = s.frames().len();
    row(
        ui,
        "Frame",
        match s.viewed() {
            Some(i) => format!("{} of {n} (replay)", i + 1),
            None => format!("{n} (live)"),
        },
    );
    let keys = m.keys;
    ui.weak(format!(
        "keys: {}{}{}{}{}{}",
        if keys.forward { "forward " } else { "" },
        if keys.back { "back " } else { "" },
        if keys.left { "left " } else { "" },
        if keys.right { "right " } else { "" },
        if keys.run { "run " } else { "" },
        if keys.strafe { "strafe" } else { "" },
    ));
}

fn candidates_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(m) = p.matching() else {
        return;
    };
    let s = &m.session;
    let Some(search) = s.last_search() else {
        ui.weak("No search yet.");
        return;
    };
    ui.label(format!(
        "Search at {:.2} s: {}",
        search.wall_secs,
        match (search.jumped, search.continue_cost) {
            (true, Some(c)) => format!("jumped (continuing cost {c:.3})"),
            (true, None) => "jumped (the clip ended)".to_string(),
            (false, Some(c)) => match search.candidates.first() {
                Some(b) => format!(
                    "kept playing: continuing ({c:.3}, its bias included) beat the best candidate ({:.3})",
                    b.cost
                ),
                None => format!("kept playing (continuing cost {c:.3}; no candidate qualified)"),
            },
            (false, None) => "nothing to jump to".to_string(),
        }
    ));
    // Each column is heat-mapped against its own worst value (green good, red bad).
    let mut full = [0.25f32; 6];
    for c in &search.candidates {
        for (f, v) in full.iter_mut().zip(c.groups) {
            *f = f.max(v);
        }
    }
    let total_full = search
        .candidates
        .iter()
        .map(|c| c.cost)
        .fold(0.25f32, f32::max);
    let chosen = s.db.nearest_frame(search.source, search.clip_time_secs);
    egui::ScrollArea::horizontal()
        .id_salt("mm_candidates")
        .show(ui, |ui| {
            egui::Grid::new("mm_candidates_grid")
                .striped(true)
                .num_columns(9)
                .show(ui, |ui| {
                    ui.strong("#");
                    ui.strong("clip");
                    ui.strong("time");
                    ui.strong("cost");
                    for (t, g) in GROUP_TITLES.iter().zip(FEATURE_GROUPS) {
                        ui.strong(*t).on_hover_text(g.as_str());
                    }
                    ui.end_row();
                    for (rank, c) in search.candidates.iter().enumerate() {
                        let mark = if c.frame == chosen && search.jumped {
                            " *"
                        } else {
                            ""
                        };
                        ui.label(format!("{}{}", rank + 1, mark));
                        ui.label(p.stage.main.model.clips[c.clip].name());
                        ui.label(format!("{:.2}", c.time_secs));
                        ui.colored_label(heat(c.cost, total_full), format!("{:.3}", c.cost));
                        for (g, v) in c.groups.iter().enumerate() {
                            ui.colored_label(heat(*v, full[g]), format!("{v:.3}"));
                        }
                        ui.end_row();
                    }
                });
        });
    // A fixed height, whatever the list's length: the controls below stay where they
    // are while the list changes from search to search (a moving checkbox is hard to
    // click).
    ui.label(if search.dropped.is_empty() {
        "Kept out, though they would have cost less: none"
    } else {
        "Kept out, though they would have cost less:"
    })
    .on_hover_text("frames the search may not jump to: in the exclusion window around what plays, missing a required tag or carrying an excluded one, or in a clip's last moments");
    let height = 6.0 * ui.text_style_height(&egui::TextStyle::Body);
    let top = ui.cursor().top();
    // One wrapped line per frame (clip, time, cost, then why): a long take name wraps
    // with its row instead of running under the next column.
    egui::ScrollArea::vertical()
        .id_salt("mm_dropped_scroll")
        .max_height(height)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            for d in &search.dropped {
                let mut row = egui::text::LayoutJob::default();
                let style = ui.style().clone();
                let body = egui::TextStyle::Body.resolve(&style);
                let strong = ui.visuals().text_color();
                let weak = ui.visuals().weak_text_color();
                let plain = |color| egui::TextFormat::simple(body.clone(), color);
                row.append(
                    &format!(
                        "{} at {:.2} s, cost {:.3}: ",
                        p.stage.main.model.clips[d.clip].name(),
                        d.time_secs,
                        d.cost
                    ),
                    0.0,
                    plain(strong),
                );
                row.append(d.reason.as_str(), 0.0, plain(weak));
                ui.add(egui::Label::new(row).wrap());
            }
        });
    let used = ui.cursor().top() - top;
    if used < height {
        ui.add_space(height - used);
    }
}

fn settings_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let mut overlays = p.matching.overlays;
    let Some(m) = p.matching() else {
        return;
    };
    let mut def = m.session.def.clone();
    let tag_names = m.session.db.tag_names().to_vec();
    if !tag_names.is_empty() {
        let shown = match (&def.style, &m.session.style) {
            (None, Some(s)) => format!("{s} (automatic)"),
            (None, None) => "any (automatic)".to_string(),
            (Some(s), _) => s.clone(),
        };
        egui::ComboBox::from_label("Style")
            .selected_text(shown)
            .show_ui(ui, |ui| {
                ui.selectable_value(
                    &mut def.style,
                    None,
                    "automatic (normal, when the library has it)",
                );
                ui.selectable_value(&mut def.style, Some("any".to_string()), "any");
                for t in &tag_names {
                    ui.selectable_value(&mut def.style, Some(t.clone()), t);
                }
            })
            .response
            .on_hover_text("every jump lands on a take with this tag (a capture library's styles: normal, active, elderly...); the keyboard's walk and run speeds follow its takes");
    }
    egui::CollapsingHeader::new("Weights")
        .default_open(false)
        .show(ui, |ui| {
            let mut w = def.weights.to_array();
            for (v, g) in w.iter_mut().zip(FEATURE_GROUPS) {
                ui.add(egui::Slider::new(v, 0.0..=5.0).text(g.as_str()));
            }
            def.weights = crate::stage::matching::WeightsDef::from_array(w);
            // Rebuilds the database: applied when the drag ends, not on every step.
            let mut smoothing = def.root_smoothing_secs;
            let r = ui
                .add(egui::Slider::new(&mut smoothing, 0.0..=1.5).text("root path smoothing (s)"))
                .on_hover_text("half-width of the window that averages the gait's sway out of the root's path before features are measured (rebuilds the database)");
            if r.drag_stopped() || (r.changed() && !r.dragged()) {
                def.root_smoothing_secs = smoothing;
            }
        });
    egui::CollapsingHeader::new("Continuity and blending")
        .default_open(false)
        .show(ui, |ui| {
            ui.add(egui::Slider::new(&mut def.min_dwell_secs, 0.0..=2.0).text("min dwell (s)"));
            ui.add(egui::Slider::new(&mut def.continuing_bias, -2.0..=0.0).text("continuing bias"));
            ui.add(
                egui::Slider::new(&mut def.search_interval_secs, 0.0..=0.5)
                    .text("search every (s)"),
            );
            ui.add(
                egui::Slider::new(&mut def.exclude_window_secs, 0.0..=1.0)
                    .text("exclusion window (s)"),
            );
            ui.add(
                egui::Slider::new(&mut def.half_life_secs, 0.01..=0.5)
                    .text("inertialization half-life (s)"),
            );
            let mut clamp = def.drift_clamp_m.is_some();
            ui.checkbox(&mut clamp, "Keep the simulation near the character");
            def.drift_clamp_m = clamp.then(|| def.drift_clamp_m.unwrap_or(0.5));
            if let Some(c) = def.drift_clamp_m.as_mut() {
                ui.add(egui::Slider::new(c, 0.05..=2.0).text("drift clamp (m)"));
            }
            let mut steer = def.steering_deg_per_sec.is_some();
            ui.checkbox(&mut steer, "Steer the facing");
            def.steering_deg_per_sec = steer.then(|| def.steering_deg_per_sec.unwrap_or(30.0));
            if let Some(r) = def.steering_deg_per_sec.as_mut() {
                ui.add(egui::Slider::new(r, 0.0..=180.0).text("steering (°/s)"));
            }
            let mut adjust = def.adjust_half_life_secs.is_some();
            ui.checkbox(&mut adjust, "Pull the character towards the simulation")
                .on_hover_text("moves the character towards the simulated point, by at most a share of its own travel each frame");
            def.adjust_half_life_secs = adjust.then(|| def.adjust_half_life_secs.unwrap_or(0.2));
            if let Some(h) = def.adjust_half_life_secs.as_mut() {
                ui.add(egui::Slider::new(h, 0.05..=2.0).text("pull half-life (s)"));
                ui.add(
                    egui::Slider::new(&mut def.adjust_max_ratio, 0.0..=1.0)
                        .text("pull, share of own travel"),
                );
            }
            ui.add(egui::Slider::new(&mut def.play_rate_min, 0.5..=1.0).text("slowest play rate"))
                .on_hover_text("the playing take runs at the simulation's speed over its own, within this range");
            ui.add(egui::Slider::new(&mut def.play_rate_max, 1.0..=2.0).text("fastest play rate"));
            ui.checkbox(&mut def.foot_lock, "Lock planted feet (two-bone IK)")
                .on_hover_text("a foot the playing take has down stays where it came down until the take lifts it");
            if def.foot_lock {
                ui.add(
                    egui::Slider::new(&mut def.foot_unlock_radius_m, 0.02..=1.0)
                        .text("let go beyond (m)"),
                );
                ui.add(
                    egui::Slider::new(&mut def.foot_lock_release_secs, 0.01..=1.0)
                        .text("release blend (s)"),
                );
            }
            ui.checkbox(&mut def.accelerated, "Bounding-box search")
                .on_hover_text("the same result as brute force, faster on large databases");
        });
    let tags = m.session.db.tag_names().to_vec();
    let (mut require, mut exclude) = (m.require_tags, m.exclude_tags);
    if !tags.is_empty() {
        egui::CollapsingHeader::new("Jump targets")
            .default_open(false)
            .show(ui, |ui| {
                ui.weak("Tags a jump must land on (require) or avoid (exclude).");
                // One wrapped row per tag (the boxes name it): every box stays in view.
                for (i, t) in tags.iter().enumerate() {
                    let bit = 1u32 << i;
                    ui.horizontal_wrapped(|ui| {
                        let mut r = require & bit != 0;
                        let mut x = exclude & bit != 0;
                        if ui.checkbox(&mut r, format!("require {t}")).changed() {
                            require = if r { require | bit } else { require & !bit };
                            exclude &= !bit;
                        }
                        if ui.checkbox(&mut x, format!("exclude {t}")).changed() {
                            exclude = if x { exclude | bit } else { exclude & !bit };
                            require &= !bit;
                        }
                    });
                }
            });
    }
    egui::CollapsingHeader::new("Overlays")
        .default_open(false)
        .show(ui, |ui| {
            ui.checkbox(&mut overlays.desired, "Desired trajectory (cyan)");
            ui.checkbox(&mut overlays.matched, "Playing frame's trajectory (orange)");
            ui.checkbox(&mut overlays.features, "Foot features: query / match");
            ui.checkbox(&mut overlays.drift, "Simulated point and drift (red)");
        });
    let tags_changed = (require, exclude) != (m.require_tags, m.exclude_tags);
    p.set_view(ViewCommand::MatchingOverlays(overlays));
    if tags_changed {
        p.send(StageCommand::MatchingTags { require, exclude });
    }
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Reset")
            .on_hover_text("stand at the origin and start a new recording")
            .clicked()
        {
            p.reset_matching();
        }
        ui.weak("Edits start a new recording from the shown pose.");
    });
    if p.matching().is_some_and(|m| m.session.def != def) {
        p.edit_matching(|d| *d = def);
    }
}

/// The timeline in motion-matching mode: transport, and the recording as a track of
/// clip segments with jump ticks; dragging on it scrubs (replays) recorded frames.
pub(super) fn matching_timeline_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    ui.add_space(4.0);
    ui.horizontal(|ui| {
        let playing = p.is_playing();
        if ui
            .button(if playing { "Pause" } else { "Play" })
            .on_hover_text("Play / pause (Space); playing again continues live")
            .clicked()
        {
            p.toggle_play();
        }
        if ui
            .button("Back")
            .on_hover_text("Previous recorded frame (Left, paused)")
            .clicked()
        {
            p.step_matching_view(-1);
        }
        if ui
            .button("Forward")
            .on_hover_text("Next recorded frame (Right, paused)")
            .clicked()
        {
            p.step_matching_view(1);
        }
        if let Some(m) = p.matching() {
            let s = &m.session;
            let n = s.frames().len();
            let shown = s.viewed().map(|i| i + 1).unwrap_or(n);
            let secs = s.current().map(|f| f.wall_secs).unwrap_or(0.0);
            ui.label(format!("recording: frame {shown} / {n}, {secs:.2} s"));
            let jumps = s.frames().iter().filter(|f| f.jumped).count();
            ui.weak(format!("{jumps} jumps"));
        }
    });
    ui.add_space(2.0);
    track_ui(p, ui);
    ui.add_space(4.0);
}

fn track_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(m) = p.matching() else {
        return;
    };
    let width = ui.available_width();
    let (rect, response) = ui.allocate_exact_size(Vec2::new(width, 34.0), Sense::click_and_drag());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, Color32::from_gray(35));
    let frames = m.session.frames();
    let n = frames.len();
    if n == 0 {
        return;
    }
    let x_of = |i: usize| rect.left() + rect.width() * i as f32 / n.max(1) as f32;
    // Segments: one colour per clip, ticks at the jumps.
    let band = Rect::from_min_max(
        rect.left_top() + Vec2::new(0.0, 4.0),
        rect.right_bottom() - Vec2::new(0.0, 12.0),
    );
    let mut start = 0;
    for i in 1..=n {
        if i == n || frames[i].clip != frames[start].clip {
            let r = Rect::from_min_max(
                Pos2::new(x_of(start), band.top()),
                Pos2::new(x_of(i).max(x_of(start) + 1.0), band.bottom()),
            );
            painter.rect_filled(r, 0.0, clip_color(frames[start].clip));
            if r.width() > 60.0 {
                painter.text(
                    r.left_center() + Vec2::new(3.0, 0.0),
                    Align2::LEFT_CENTER,
                    p.stage.main.model.clips[frames[start].clip].name(),
                    FontId::proportional(11.0),
                    Color32::BLACK,
                );
            }
            start = i;
        }
    }
    for (i, f) in frames.iter().enumerate() {
        if f.jumped {
            let x = x_of(i);
            painter.line_segment(
                [
                    Pos2::new(x, band.bottom()),
                    Pos2::new(x, rect.bottom() - 2.0),
                ],
                Stroke::new(1.0, Color32::WHITE),
            );
        }
    }
    let shown = m.session.viewed().unwrap_or(n - 1);
    let x = x_of(shown) + 0.5 * rect.width() / n as f32;
    painter.line_segment(
        [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
        Stroke::new(2.0, Color32::from_rgb(255, 80, 80)),
    );
    let hover = response.hover_pos().map(|pos| {
        (((pos.x - rect.left()) / rect.width()) * n as f32).clamp(0.0, (n - 1) as f32) as usize
    });
    if let Some(i) = hover {
        let f = &frames[i];
        response.clone().on_hover_text(format!(
            "{:.2} s: {} at {:.2} s{}",
            f.wall_secs,
            p.stage.main.model.clips[f.clip].name(),
            f.clip_time_secs,
            if f.jumped { " (jump)" } else { "" }
        ));
    }
    if response.dragged() || response.clicked() {
        if let Some(pos) = response.interact_pointer_pos() {
            let i = (((pos.x - rect.left()) / rect.width()) * n as f32).clamp(0.0, (n - 1) as f32)
                as usize;
            p.seek_matching(i);
        }
    }
}

/// Reads the held movement keys (every frame, while motion matching is on).
pub(super) fn read_keys(ui: &egui::Ui) -> crate::stage::matching::KeyInput {
    use egui::Key;
    ui.input(|i| crate::stage::matching::KeyInput {
        forward: i.key_down(Key::W) || i.key_down(Key::ArrowUp),
        back: i.key_down(Key::S) || i.key_down(Key::ArrowDown),
        left: i.key_down(Key::A) || i.key_down(Key::ArrowLeft),
        right: i.key_down(Key::D) || i.key_down(Key::ArrowRight),
        run: i.modifiers.shift,
        strafe: i.modifiers.ctrl,
    })
}
