//! Opening files and folders (a folder loads on a worker thread), retargeting clips
//! onto the character, replacing the model on a reload, and the per-file state kept in
//! the settings.

use super::*;
use crate::AppError;

impl Previewer {
    /// How the files opened from now on are read (units, truncated BVH, key reduction):
    /// the command line's flags, set once at start-up.
    pub fn set_load_options(&mut self, options: crate::asset::LoadOptions) {
        self.loads.options = options;
    }

    /// How the files the window opens are read.
    pub fn load_options(&self) -> crate::asset::LoadOptions {
        self.loads.options
    }

    /// Loads `path` and shows it. On failure the error goes to the status bar and the
    /// current character stays (returns the error too).
    pub fn open_path(&mut self, path: &Path) -> Result<(), AppError> {
        // A reload of the open file keeps the scene the user picked.
        let scene = if self.stage.main.path.as_deref() == Some(path) {
            self.stage
                .main
                .model
                .scene
                .filter(|&s| s < self.stage.main.model.scenes.len())
        } else {
            None
        };
        self.load_path(path, scene)
    }

    /// Opens the in-app file browser to open a character.
    pub fn open_file_browser(&mut self) {
        self.open_file_browser_for(crate::file_browser::Purpose::Open);
    }

    /// Opens the in-app file browser for `purpose` in the folder last browsed (else the
    /// open file's, else the most recent file's, else the working directory).
    pub fn open_file_browser_for(&mut self, purpose: crate::file_browser::Purpose) {
        let start = self
            .loads
            .browsed_dir
            .clone()
            .filter(|d| d.is_dir())
            .or_else(|| {
                self.stage
                    .main
                    .path
                    .as_deref()
                    .and_then(Path::parent)
                    .map(Path::to_path_buf)
            })
            .or_else(|| self.recent_folders().into_iter().next())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."));
        self.view.windows.file_browser = Some(crate::file_browser::FileBrowser::for_purpose(
            &start, purpose,
        ));
    }

    /// Folders of the recent files that still exist, most recent first, each once.
    pub fn recent_folders(&self) -> Vec<PathBuf> {
        let mut folders: Vec<PathBuf> = Vec::new();
        for file in &self.settings.recent_files {
            if let Some(dir) = file.parent().filter(|d| d.is_dir()) {
                if !folders.iter().any(|f| f == dir) {
                    folders.push(dir.to_path_buf());
                }
            }
        }
        folders
    }

    /// Shows scene `scene` of the open file (Clips > Scene); the demo has one scene.
    pub fn show_scene(&mut self, scene: usize) -> Result<(), AppError> {
        let Some(path) = self.stage.main.path.clone() else {
            return Err("the built-in demo has one scene".into());
        };
        self.load_path(&path, Some(scene))
    }

    pub(super) fn load_path(&mut self, path: &Path, scene: Option<usize>) -> Result<(), AppError> {
        if path.is_dir() {
            self.start_folder_load(path);
            return Ok(());
        }
        match crate::asset::load_scene_with(path, scene, &self.loads.options) {
            Ok(model) => {
                self.replace_model(model, Some(path.to_path_buf()));
                let text = match self.import_warning_summary() {
                    Some(w) => format!("opened {}: {w}", path.display()),
                    None => format!("opened {}", path.display()),
                };
                self.set_message(text, false);
                Ok(())
            }
            Err(e) => {
                let e = AppError::from(e);
                self.set_message(
                    format!("{} (kept {})", e.report(), self.stage.main.model.source),
                    true,
                );
                Err(e)
            }
        }
    }

    /// Starts loading the BVH/FBX files of `dir` on a worker thread (a previous folder
    /// load still running is left to finish and dropped). [`Self::poll_pending_load`]
    /// shows the character when it is ready.
    pub(super) fn start_folder_load(&mut self, dir: &Path) {
        use std::sync::atomic::Ordering;
        // The same folder already loading (files still being copied in): load it once more
        // when this load is done, instead of parsing it twice at once.
        if let Some(p) = self
            .loads
            .pending
            .as_mut()
            .filter(|p| !p.library && p.path == dir)
        {
            p.again = true;
            return;
        }
        self.drop_pending_load("another folder was opened");
        let progress = std::sync::Arc::new(LoadProgress::default());
        let (worker_progress, worker_dir) = (progress.clone(), dir.to_path_buf());
        let options = self.loads.options;
        let spawned = std::thread::Builder::new()
            .name("folder load".into())
            .spawn(move || -> Result<Loaded, AppError> {
                let report = |done: usize, total: usize| {
                    worker_progress.total.store(total, Ordering::Relaxed);
                    worker_progress.done.store(done, Ordering::Relaxed);
                };
                let model =
                    crate::asset::folder::load_folder_reduced(&worker_dir, &options, &report)
                        .map_err(|e| match e {
                            // An option's error does not name the folder; the others do.
                            crate::asset::LoadError::Options(o) => {
                                AppError::from(crate::asset::LoadError::Options(o))
                                    .context(worker_dir.display().to_string())
                            }
                            other => AppError::from(other),
                        })?;
                Ok(Loaded::Folder(model))
            });
        match spawned {
            Ok(handle) => {
                self.loads.pending = Some(PendingLoad {
                    path: dir.to_path_buf(),
                    library: false,
                    report_outcome: false,
                    progress,
                    handle,
                    again: false,
                });
                self.set_message(format!("loading {} ...", dir.display()), false);
            }
            Err(e) => self.set_message(
                format!(
                    "{}: cannot start loading: {e} (kept {})",
                    dir.display(),
                    self.stage.main.model.source
                ),
                true,
            ),
        }
    }

    /// Builds the motion-matching library `library` (files or folders; `mirror`: each
    /// clip mirrored too) on the open character on a worker thread: its takes read,
    /// retargeted onto the character, and with `then_match` the database built, while the
    /// window keeps drawing with a progress bar. [`Self::poll_pending_load`] puts the
    /// clips on the character (and starts motion matching) when it is ready.
    /// `in_place` is applied to the library's clips before the database is built.
    pub fn start_library_load(
        &mut self,
        library: &[PathBuf],
        mirror: bool,
        then_match: bool,
        in_place: crate::anim::locomotion::InPlaceOverride,
    ) {
        use std::sync::atomic::Ordering;
        let Some(first) = library.first() else {
            return;
        };
        self.drop_pending_load("a library build started");
        let progress = std::sync::Arc::new(LoadProgress::default());
        let worker_progress = progress.clone();
        let character = self.stage.main.model.clone();
        let (library, tags) = (library.to_vec(), self.matching.tags.clone());
        let options = self.loads.options;
        let spawned = std::thread::Builder::new()
            .name("library build".into())
            .spawn(move || -> Result<Loaded, AppError> {
                let p = &worker_progress;
                let report = |step: crate::stage::retarget::LibraryStep| {
                    use crate::stage::retarget::LibraryStep;
                    let (k, done, total) = match step {
                        LibraryStep::Reading { done, total } => (0, done, total),
                        LibraryStep::Retargeting { done, total } => (1, done, total),
                    };
                    p.step.store(k, Ordering::Relaxed);
                    p.total.store(total, Ordering::Relaxed);
                    p.done.store(done, Ordering::Relaxed);
                };
                let (mut model, files, mut library_tags) =
                    crate::stage::retarget::library_model_with(
                        character, &library, mirror, &options, &report,
                    )?;
                if in_place != crate::anim::locomotion::InPlaceOverride::Auto {
                    model.set_in_place_override_all(in_place);
                }
                library_tags.extend(tags);
                // Every clip's analysis (root motion, contacts) here on the worker's
                // threads, not on the window's when the grid or the timeline first asks.
                {
                    use rayon::prelude::*;
                    (0..model.clips.len()).into_par_iter().for_each(|i| {
                        let _ = model.clip_analysis(i);
                    });
                }
                let session = if then_match {
                    p.step.store(2, Ordering::Relaxed);
                    p.total.store(0, Ordering::Relaxed);
                    let def = crate::stage::matching::MatchingDef {
                        tags: library_tags.clone(),
                        ..Default::default()
                    };
                    // Cached in the user's cache folder under its content key.
                    Some(Box::new(
                        crate::stage::matching::MatchingSession::new_cached_by_content(
                            &model, def,
                        )?,
                    ))
                } else {
                    None
                };
                Ok(Loaded::Library {
                    model,
                    files,
                    mirror,
                    tags: library_tags,
                    session,
                })
            });
        match spawned {
            Ok(handle) => {
                self.loads.pending = Some(PendingLoad {
                    path: first.clone(),
                    library: true,
                    report_outcome: true,
                    progress,
                    handle,
                    again: false,
                });
                let what = if then_match {
                    "the motion-matching library"
                } else {
                    "the library"
                };
                self.set_message(
                    format!("building {what} from {} ...", first.display()),
                    false,
                );
            }
            Err(e) => {
                let e = AppError::system("start the library build", e);
                self.set_message(e.report(), true);
                self.loads.library_outcome = Some(Err(e));
            }
        }
    }

    /// Drops a folder load or library build still running (its worker finishes on its
    /// own and is discarded), saying so in the status bar.
    fn drop_pending_load(&mut self, why: &str) {
        if let Some(p) = self.loads.pending.take() {
            self.loads.library_view_pending = false;
            let what = if p.library {
                "building the library from"
            } else {
                "loading"
            };
            self.set_message(
                format!("stopped {what} {} ({why})", p.path.display()),
                false,
            );
            if p.report_outcome {
                self.loads.library_outcome =
                    Some(Err(format!("{}: stopped ({why})", p.path.display()).into()));
            }
        }
    }

    /// How the last library build ended (`Err`: its reason), once: the window applies the
    /// other start-up options after it, or stops a scripted run that needed it.
    pub fn take_library_outcome(&mut self) -> Option<Result<(), AppError>> {
        self.loads.library_outcome.take()
    }

    /// True while a folder or a library loads in the background.
    pub fn is_loading(&self) -> bool {
        self.loads.pending.is_some()
    }

    /// What loads in the background, for the status bar: its text ("loading walks:
    /// reading files 12/40") and how far it is (0..1; `None` while it cannot tell).
    pub fn loading_progress(&self) -> Option<(String, Option<f32>)> {
        use std::sync::atomic::Ordering;
        let p = self.loads.pending.as_ref()?;
        let name = p
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.path.display().to_string());
        let step = LOAD_STEPS[p.progress.step.load(Ordering::Relaxed).min(2)];
        let (done, total) = (
            p.progress.done.load(Ordering::Relaxed),
            p.progress.total.load(Ordering::Relaxed),
        );
        Some(if total == 0 {
            (format!("loading {name}: {step} ..."), None)
        } else {
            (
                format!("loading {name}: {step} {done}/{total}"),
                Some(done as f32 / total as f32),
            )
        })
    }

    /// Shows the folder loaded in the background once it is ready (or its error, keeping
    /// the current character). Returns true when a load finished this call. Called once
    /// per frame by the window.
    pub fn poll_pending_load(&mut self) -> bool {
        if !self
            .loads
            .pending
            .as_ref()
            .is_some_and(|p| p.handle.is_finished())
        {
            return false;
        }
        let Some(pending) = self.loads.pending.take() else {
            return false;
        };
        let again = pending.again;
        let result = pending.handle.join().unwrap_or_else(|_| {
            Err(format!("{}: the loader stopped", pending.path.display()).into())
        });
        match result {
            Ok(Loaded::Library {
                model,
                files,
                mirror,
                tags,
                session,
            }) => {
                let clips = model.clips.len();
                // Motion matching on the character it replaces would be rebuilt on this
                // thread for the new clips: the worker built it already.
                if self.stage.main.source.matching().is_some() {
                    self.stage.main.source = MotionSource::Clip;
                }
                // The library's character is made in memory: no file to reload.
                self.replace_model(model, None);
                self.matching.tags = tags;
                if pending.report_outcome {
                    self.loads.library_outcome = Some(Ok(()));
                }
                let grid = std::mem::take(&mut self.loads.library_view_pending);
                let mirrored = if mirror { " (mirrored too)" } else { "" };
                let text = if grid || session.is_none() {
                    format!("the library: {clips} clips from {files} files{mirrored}")
                } else {
                    format!("motion matching on {clips} clips from {files} library files{mirrored}")
                };
                self.set_message(text, false);
                if let Some(session) = session {
                    self.start_matching(*session);
                }
                if grid {
                    self.open_library_view();
                }
            }
            Ok(Loaded::Folder(model)) => {
                let verb = if self.stage.main.path.as_deref() == Some(pending.path.as_path()) {
                    "reloaded"
                } else {
                    "opened"
                };
                self.replace_model(model, Some(pending.path.clone()));
                let text = match self.import_warning_summary() {
                    Some(w) => format!("{verb} {}: {w}", pending.path.display()),
                    None => format!("{verb} {}", pending.path.display()),
                };
                self.set_message(text, false);
            }
            Err(e) => {
                let report = e.report();
                if pending.report_outcome {
                    self.loads.library_outcome = Some(Err(e));
                }
                if pending.library {
                    self.loads.library_view_pending = false;
                }
                self.set_message(
                    format!("{report} (kept {})", self.stage.main.model.source),
                    true,
                );
            }
        }
        if again {
            self.start_folder_load(&pending.path);
        }
        true
    }

    /// Shows `model`: keeps mode, rate and looping, selects the clip of the same name when
    /// there is one (a reload), frames the camera for a new file.
    pub fn replace_model(&mut self, model: Model, path: Option<PathBuf>) {
        // A folder still loading would replace what the user opened after it: drop it,
        // and say so.
        self.drop_pending_load("another character was opened");
        let reload = path.is_some() && path == self.stage.main.path;
        // The library view shows the old model's clips: close it (the camera as it was
        // before it) and open it again on a reload of the same file.
        let library_view_again = reload && self.loads.library_view.is_some();
        self.close_library_view();
        let clip_name = self
            .stage
            .main
            .timeline
            .clip()
            .and_then(|i| self.stage.main.model.clips.get(i))
            .map(|c| c.name().to_string());
        let (mode, rate, looping, playing) = (
            self.stage.main.timeline.mode(),
            self.stage.main.timeline.clock().rate(),
            self.stage.main.timeline.clock().looping(),
            self.stage.main.timeline.is_playing(),
        );
        if !reload {
            // The file being left keeps its own rate, loop, clip and search for later.
            self.remember_file_state();
        }
        // The last retarget's clips are where it put them only in the model it made (a
        // retarget sets its session again after this): applying its map to another file,
        // or to this one read again from disk, would cut clips that are not its.
        self.retarget = None;
        self.view.windows.bone_map = false;
        // A library's tags name its clips: another file does not have them.
        if path != self.stage.main.path {
            self.matching.tags.clear();
        }
        let time = self.stage.main.timeline.clock().time();
        let world = self.stage.main.timeline.world_from_root();
        let old_names = self.stage.main.model.skeleton.names().to_vec();
        // A reload keeps the legs the user chose (when they still fit the skeleton).
        let legs = self.stage.main.model.leg_override().map(<[_]>::to_vec);
        self.stage.main.model = model;
        if reload && legs.is_some() {
            let _ = self.stage.main.model.set_leg_override(legs);
        }
        self.stage.main.path = path.clone();
        self.stage.main.generation += 1;
        self.stage.main.pose = Pose::new(&self.stage.main.model);
        // A reload of the same file keeps the selected and pinned joints that still
        // exist, found again by name (the joint order may have changed).
        let name_of = |j: usize| old_names.get(j).cloned();
        let selected = self.inspect.selected.and_then(name_of);
        let pinned: Vec<String> = self
            .inspect
            .pinned
            .iter()
            .filter_map(|&j| name_of(j))
            .collect();
        self.inspect.reset_for_model();
        if reload {
            let sk = &self.stage.main.model.skeleton;
            self.inspect.selected = selected.and_then(|n| sk.find(&n));
            self.inspect.pinned = pinned.iter().filter_map(|n| sk.find(n)).collect();
        }
        // B's joints were matched against the old skeleton.
        self.stage.compare = None;
        self.view.ghosts.poses.clear();
        // The graph names clips of the old file: rebuild the new file's default graph (or
        // the drive graph of the selected clip) once the timeline is rebuilt.
        let had_graph =
            self.stage.main.source.graph().is_some() && !self.stage.main.source.is_drive_only();
        let driving = self.is_driving();
        let had_matching = self.stage.main.source.matching().is_some();
        self.stage.main.source = MotionSource::Clip;
        let mut timeline = Timeline::new(&self.stage.main.model);
        timeline.set_mode(mode);
        if reload {
            timeline.set_rate(rate);
            timeline.set_looping(looping);
        } else {
            // Another file: its own remembered state, or the defaults the first time.
            let file = self.settings.file_state(path.as_deref());
            Self::apply_file_state(&mut timeline, &self.stage.main.model, &file);
            self.inspect.filter = file.joint_filter;
        }
        if reload {
            // A reload (file changed on disk): same clip, same cycle and phase, same
            // accumulated placement.
            if let Some(i) = clip_name.and_then(|n| self.stage.main.model.find_clip(&n)) {
                timeline.select_clip(&self.stage.main.model, i);
                timeline.seek(time);
            }
            timeline.set_world_from_root(world);
        }
        timeline.set_playing(playing);
        self.stage.main.timeline = timeline;
        if !reload {
            self.view.frame_pending = true;
        }
        if let Some(p) = &path {
            self.settings.push_recent(p);
        }
        self.settings.last_file = path;
        if had_graph {
            self.set_graph_enabled(true);
        }
        if driving {
            self.set_drive(true);
        }
        if had_matching {
            self.set_matching_enabled(true);
        }
        self.evaluate_pose();
        if library_view_again {
            self.open_library_view();
        }
    }

    /// Writes the current preferences into `settings` (the window saves them on exit).
    pub fn store_settings(&mut self) {
        self.settings.toggles = self.view.toggles;
        self.settings.root_motion_mode = self.stage.main.timeline.mode().label().to_string();
        self.remember_file_state();
    }

    /// Remembers the open file's playback state (clip, rate, looping, outliner search)
    /// by its path, for when it is opened again.
    pub fn remember_file_state(&mut self) {
        let state = crate::settings::FileState {
            path: self.stage.main.path.clone(),
            clip: self
                .stage
                .main
                .timeline
                .clip()
                .and_then(|i| self.stage.main.model.clips.get(i))
                .map(|c| c.name().to_string()),
            play_rate: self.stage.main.timeline.chosen_rate(),
            looping: self.stage.main.timeline.clock().looping(),
            joint_filter: self.inspect.filter.clone(),
        };
        self.settings.remember_file(state);
    }

    /// A file's remembered playback state on a fresh timeline of `model`.
    pub(super) fn apply_file_state(
        timeline: &mut Timeline,
        model: &Model,
        file: &crate::settings::FileState,
    ) {
        // The clip the user chose to open the file on wins over the one played last; a
        // clip hidden since is not reopened.
        let chosen = model
            .arrangement
            .default_clip
            .is_some_and(|d| model.default_clip() == Some(d));
        if let Some(i) = file
            .clip
            .as_deref()
            .and_then(|n| model.find_clip(n))
            .filter(|&i| !chosen && model.clip_hidden(i).is_none())
        {
            timeline.select_clip(model, i);
        }
        timeline.set_rate(file.play_rate);
        timeline.set_looping(file.looping);
    }
}
