//! The status bar's message, the message log, error toasts and phase warnings.

use super::*;

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

    pub fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    pub fn set_message(&mut self, text: impl Into<String>, is_error: bool) {
        let m = Message {
            text: text.into(),
            is_error,
        };
        self.log_message(m.clone());
        if is_error {
            // An error the user must read also pops up over the viewport.
            self.toast = Some((m.clone(), None));
        }
        self.message = Some(m);
    }

    /// Adds `m` to the message log (View > Messages) without showing it in the status bar.
    pub fn log_message(&mut self, m: Message) {
        if self.message_log.len() == MESSAGE_LOG_LEN {
            self.message_log.pop_front();
        }
        self.message_log.push_back(m);
        self.messages_logged += 1;
    }

    /// The logged messages, oldest first (the last [`MESSAGE_LOG_LEN`]).
    pub fn message_log(&self) -> impl DoubleEndedIterator<Item = &Message> + '_ {
        self.message_log.iter()
    }

    /// Empties the message log (View > Messages > Clear).
    pub fn clear_message_log(&mut self) {
        self.message_log.clear();
    }

    /// The error toast shown over the viewport, if any.
    pub fn toast(&self) -> Option<&Message> {
        self.toast.as_ref().map(|(m, _)| m)
    }

    /// Closes the error toast.
    pub fn dismiss_toast(&mut self) {
        self.toast = None;
    }

    /// Ages the toast: `now_secs` is the UI clock; the toast closes [`TOAST_SECS`] after it
    /// first showed. Returns the seconds it has left.
    pub fn age_toast(&mut self, now_secs: f64) -> Option<f64> {
        let (_, since) = self.toast.as_mut()?;
        let since = *since.get_or_insert(now_secs);
        let left = TOAST_SECS - (now_secs - since);
        if left <= 0.0 {
            self.toast = None;
            return None;
        }
        Some(left)
    }

    /// Notes a phase-cancellation warning of the graph after a frame: logged once when it
    /// fires, and remembered with the graph's clock so the Blend panel keeps it visible
    /// for [`WARNING_HOLD_SECS`] after a short cross-fade ends.
    pub(super) fn note_phase_warning(&mut self) {
        let Some(g) = self.stage.main.source.graph() else {
            self.phase_warning_on = false;
            return;
        };
        match g.phase_warning() {
            Some(text) => {
                let wall = g.wall_secs();
                if !self.phase_warning_on {
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
                self.phase_warning_on = true;
                self.last_phase_warning = Some((text, wall));
            }
            None => self.phase_warning_on = false,
        }
    }

    /// The graph's phase warning while it is on, or for [`WARNING_HOLD_SECS`] after it
    /// stopped: its text and the seconds since it last fired (0 while on).
    pub fn recent_phase_warning(&self) -> Option<(&str, f64)> {
        let g = self.stage.main.source.graph()?;
        let (text, at) = self.last_phase_warning.as_ref()?;
        let ago = if self.phase_warning_on {
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
        let new = self.messages_logged.saturating_sub(seen) as usize;
        let skip = self.message_log.len().saturating_sub(new);
        (self.message_log.iter().skip(skip), self.messages_logged)
    }

    /// Actions for the window, oldest first.
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }
}
