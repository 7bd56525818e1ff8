//! The status bar's message, the message log, error toasts and phase warnings.

use super::*;

/// What the window says: the status bar's message, the log (View > Messages), the error
/// toast over the viewport and the graph's phase warning.
#[derive(Default)]
pub struct Messages {
    /// The status bar's message.
    current: Option<Message>,
    /// Every status message so far, oldest first, the last [`MESSAGE_LOG_LEN`] kept, and
    /// how many were ever logged (the window prints new ones in scripted runs).
    log: std::collections::VecDeque<Message>,
    logged: u64,
    /// The error toast and the UI time it first showed.
    toast: Option<(Message, Option<f64>)>,
    /// Whether the graph warned of phase cancellation last frame, and the last warning
    /// with the graph's clock when it last fired.
    phase_warning_on: bool,
    last_phase_warning: Option<(String, f64)>,
}

impl Messages {
    /// Forgets the phase warning (a new graph's clock starts at 0: an old warning's time
    /// means nothing).
    pub(super) fn forget_phase_warning(&mut self) {
        self.last_phase_warning = None;
        self.phase_warning_on = false;
    }

    /// Replaces the status bar's message without logging it (a message that repeats
    /// every frame).
    pub(super) fn replace_current(&mut self, m: Message) {
        self.current = Some(m);
    }
}

impl Previewer {
    /// "N import warning(s): the first one" when the importer ignored or repaired
    /// something (unsupported extensions, morph targets...), for the status bar; the list
    /// is under Clips > Import warnings.
    pub fn import_warning_summary(&self) -> Option<String> {
        let first = self.stage.main.model.warnings.first()?;
        Some(match self.stage.main.model.warnings.len() {
            1 => format!("1 import warning: {first}"),
            n => format!("{n} import warnings (see Clips > Import warnings), first: {first}"),
        })
    }

    /// The status bar's message, if any.
    pub fn message(&self) -> Option<&Message> {
        self.messages.current.as_ref()
    }

    /// Shows `text` in the status bar and logs it (View > Messages); an error (`is_error`)
    /// is drawn in red and also pops up as the toast over the viewport for [`TOAST_SECS`].
    pub fn set_message(&mut self, text: impl Into<String>, is_error: bool) {
        let m = Message {
            text: text.into(),
            is_error,
        };
        self.log_message(m.clone());
        if is_error {
            // An error the user must read also pops up over the viewport.
            self.messages.toast = Some((m.clone(), None));
        }
        self.messages.current = Some(m);
    }

    /// Adds `m` to the message log (View > Messages) without showing it in the status bar.
    pub fn log_message(&mut self, m: Message) {
        if self.messages.log.len() == MESSAGE_LOG_LEN {
            self.messages.log.pop_front();
        }
        self.messages.log.push_back(m);
        self.messages.logged += 1;
    }

    /// The logged messages, oldest first (the last [`MESSAGE_LOG_LEN`]).
    pub fn message_log(&self) -> impl DoubleEndedIterator<Item = &Message> + '_ {
        self.messages.log.iter()
    }

    /// Empties the message log (View > Messages > Clear).
    pub fn clear_message_log(&mut self) {
        self.messages.log.clear();
    }

    /// The error toast shown over the viewport, if any.
    pub fn toast(&self) -> Option<&Message> {
        self.messages.toast.as_ref().map(|(m, _)| m)
    }

    /// Closes the error toast.
    pub fn dismiss_toast(&mut self) {
        self.messages.toast = None;
    }

    /// Ages the toast: `now_secs` is the UI clock; the toast closes [`TOAST_SECS`] after it
    /// first showed. Returns the seconds it has left.
    pub fn age_toast(&mut self, now_secs: f64) -> Option<f64> {
        let (_, since) = self.messages.toast.as_mut()?;
        let since = *since.get_or_insert(now_secs);
        let left = TOAST_SECS - (now_secs - since);
        if left <= 0.0 {
            self.messages.toast = None;
            return None;
        }
        Some(left)
    }

    /// Notes a phase-cancellation warning of the graph after a frame: logged once when it
    /// fires, and remembered with the graph's clock so the Blend panel keeps it visible
    /// for [`WARNING_HOLD_SECS`] after a short cross-fade ends.
    pub(super) fn note_phase_warning(&mut self) {
        let Some(g) = self.stage.main.source.graph() else {
            self.messages.phase_warning_on = false;
            return;
        };
        match g.phase_warning() {
            Some(text) => {
                let wall = g.wall_secs();
                if !self.messages.phase_warning_on {
                    let inputs: Vec<String> = g
                        .graph
                        .status(&self.stage.main.model)
                        .into_iter()
                        .filter(|s| !s.is_layer && s.weight > 0.0)
                        .map(|s| s.clip)
                        .collect();
                    self.log_message(Message {
                        text: format!("warning at {wall:.2} s ({}): {text}", inputs.join(" + ")),
                        is_error: false,
                    });
                }
                self.messages.phase_warning_on = true;
                self.messages.last_phase_warning = Some((text, wall));
            }
            None => self.messages.phase_warning_on = false,
        }
    }

    /// The graph's phase warning while it is on, or for [`WARNING_HOLD_SECS`] after it
    /// stopped: its text and the seconds since it last fired (0 while on).
    pub fn recent_phase_warning(&self) -> Option<(&str, f64)> {
        let g = self.stage.main.source.graph()?;
        let (text, at) = self.messages.last_phase_warning.as_ref()?;
        let ago = if self.messages.phase_warning_on {
            0.0
        } else {
            g.wall_secs() - at
        };
        (0.0..=WARNING_HOLD_SECS)
            .contains(&ago)
            .then_some((text.as_str(), ago))
    }

    /// The status messages logged since `seen` of them were read (oldest first; those
    /// that fell out of the log are skipped), and the new total to pass next time.
    pub fn messages_since(&self, seen: u64) -> (impl Iterator<Item = &Message>, u64) {
        let new = self.messages.logged.saturating_sub(seen) as usize;
        let skip = self.messages.log.len().saturating_sub(new);
        (self.messages.log.iter().skip(skip), self.messages.logged)
    }

    /// Actions for the window, oldest first.
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }
}
