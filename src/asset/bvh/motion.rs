//! The MOTION section: `Frames:`, `Frame Time:` and one stream of values, however the
//! lines wrap. Values are read as they come (at most one per two bytes of text), and
//! `Frames:` is only compared with what was read: nothing is allocated for a count the
//! file declares.

use super::lexer::{err, motion_value, number, shown, Lexer, ParseError, Token};
use super::parse::{Bvh, Joint};

/// Most motion values a file may hold (the Bandai set holds 10 million in all 482 files).
const MAX_VALUES: usize = 1 << 25;

/// `LABEL: value`, `LABEL:value` or `LABEL : value`, with `first` the token holding the
/// label; returns the value's token.
fn labelled<'a>(
    lx: &mut Lexer<'a>,
    first: Token<'a>,
    label: &str,
    expected: &str,
) -> Result<Token<'a>, ParseError> {
    let n = label.len();
    let matches = first
        .text
        .as_bytes()
        .get(..n)
        .is_some_and(|b| b.eq_ignore_ascii_case(label.as_bytes()));
    if !matches {
        return Err(err(
            first.line,
            format!("expected '{expected}', found '{}'", shown(first.text)),
        ));
    }
    // The first n bytes are the ASCII label: n is a character boundary.
    let rest = first.text.get(n..).unwrap_or("");
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    if !rest.is_empty() {
        return Ok(Token {
            text: rest,
            line: first.line,
        });
    }
    let mut t = lx.next();
    if let Some(colon) = t.filter(|t| t.text.starts_with(':')) {
        t = match colon.text.get(1..) {
            Some(r) if !r.is_empty() => Some(Token {
                text: r,
                line: colon.line,
            }),
            _ => lx.next(),
        };
    }
    t.ok_or_else(|| err(lx.last_line, format!("the file ends after '{expected}'")))
}

/// `Frames:`, `Frame Time:` and the values (MOTION already read).
pub(super) fn motion(
    lx: &mut Lexer<'_>,
    joints: Vec<Joint>,
    allow_truncated: bool,
) -> Result<Bvh, ParseError> {
    let Some(tok) = lx.next() else {
        return Err(err(lx.last_line, "MOTION is not followed by 'Frames:'"));
    };
    let frames_line = tok.line;
    let count = labelled(lx, tok, "Frames", "Frames:")?;
    let declared: u64 = count.text.parse().map_err(|_| {
        err(
            count.line,
            format!("Frames: '{}' is not a frame count", shown(count.text)),
        )
    })?;
    if declared == 0 {
        return Err(err(count.line, "Frames: 0: the file has no motion"));
    }
    let Some(tok) = lx.next() else {
        return Err(err(
            lx.last_line,
            "'Frames:' is not followed by 'Frame Time:'",
        ));
    };
    if !tok.text.eq_ignore_ascii_case("Frame") {
        return Err(err(
            tok.line,
            format!("expected 'Frame Time:', found '{}'", shown(tok.text)),
        ));
    }
    let Some(time_tok) = lx.next() else {
        return Err(err(lx.last_line, "the file ends after 'Frame'"));
    };
    let frame_time_line = time_tok.line;
    let t = labelled(lx, time_tok, "Time", "Frame Time:")?;
    let frame_time = number(t, "Frame Time")?;
    if frame_time <= 0.0 {
        return Err(err(
            t.line,
            format!("Frame Time {frame_time} s: a frame must last more than 0 s"),
        ));
    }

    let mut first_channel = Vec::with_capacity(joints.len());
    let mut channels_per_frame = 0usize;
    for j in &joints {
        first_channel.push(channels_per_frame);
        channels_per_frame += j.channels.len();
    }
    // None: more values than memory could hold (no file has them).
    let expected: Option<usize> = declared
        .checked_mul(channels_per_frame as u64)
        .and_then(|v| usize::try_from(v).ok());
    // A value takes at least two bytes (a digit and a separator), so this bounds what the
    // text can hold, whatever `Frames:` claims.
    let capacity = expected.unwrap_or(usize::MAX).min(lx.remaining() / 2 + 1);
    let mut values: Vec<f32> = Vec::with_capacity(capacity);
    // The line of the first value past what `Frames:` declares: such values are read (so a
    // broken one is still reported) but not kept.
    let mut extra_from: Option<usize> = None;
    let mut extra_values = 0usize;
    while let Some(t) = lx.next() {
        if values.len() + extra_values >= MAX_VALUES {
            return Err(err(
                t.line,
                format!("more than {MAX_VALUES} motion values: too large to import"),
            ));
        }
        if expected.is_some_and(|e| values.len() >= e) {
            // More frames than declared (seen in converted CMU files): other readers play
            // the declared frames; so does this one, and says where the rest began.
            if motion_value(t.text).is_err() {
                return Err(err(
                    t.line,
                    format!(
                        "'{}' after the {declared} frames Frames: declares is not a motion value",
                        shown(t.text)
                    ),
                ));
            }
            extra_from.get_or_insert(t.line);
            extra_values += 1;
            continue;
        }
        match motion_value(t.text) {
            Ok(v) if v.is_finite() => values.push(v),
            parsed => {
                let k = values.len();
                let what = describe_value(&joints, &first_channel, channels_per_frame, k);
                let problem = if parsed.is_ok() {
                    "is not a finite number"
                } else {
                    "is not a number"
                };
                return Err(err(
                    t.line,
                    format!("motion value '{}' ({what}) {problem}", shown(t.text)),
                ));
            }
        }
    }
    let mut truncated = extra_from.map(|line| {
        let whole = extra_values.checked_div(channels_per_frame).unwrap_or(0);
        let part = extra_values.checked_rem(channels_per_frame).unwrap_or(0);
        format!(
            "extra motion: the file holds {} more than Frames: {declared} (line {frames_line}) \
             declares, from line {line}; played the {declared} declared frames",
            match (whole, part) {
                (w, 0) => format!("{w} frame(s)"),
                (0, p) => format!("{p} value(s)"),
                (w, p) => format!("{w} frame(s) and {p} value(s)"),
            }
        )
    });
    // No channels at all: one frame of the rest pose.
    let frames =
        match values.len().checked_div(channels_per_frame) {
            None => 1,
            Some(complete) => {
                if Some(values.len()) != expected {
                    let needed = match expected {
                        Some(e) => e.to_string(),
                        None => format!("{declared} x {channels_per_frame}"),
                    };
                    let summary = format!(
                        "Frames: {declared} needs {needed} motion values ({declared} frames x \
                 {channels_per_frame} channels) but the file holds {} ({complete} complete \
                 frames)",
                        values.len()
                    );
                    if !allow_truncated {
                        return Err(err(
                    frames_line,
                    format!("{summary}; allow truncated files (--allow-truncated) to load those"),
                ));
                    }
                    if complete == 0 {
                        return Err(err(frames_line, format!("{summary}: nothing to load")));
                    }
                    values.truncate(complete * channels_per_frame);
                    truncated = Some(format!(
                        "truncated motion: {summary}; loaded the {complete} complete frames"
                    ));
                }
                complete
            }
        };
    Ok(Bvh {
        joints,
        first_channel,
        channels_per_frame,
        frames,
        frames_line,
        frame_time_line,
        frame_time,
        values,
        truncated,
    })
}

/// `frame F, joint 'NAME' Zrotation` for the `k`-th motion value.
fn describe_value(joints: &[Joint], first_channel: &[usize], per_frame: usize, k: usize) -> String {
    if per_frame == 0 {
        return format!("value {k}");
    }
    let (frame, c) = (k / per_frame, k % per_frame);
    let joint = (0..joints.len().min(first_channel.len()))
        .find(|&j| first_channel[j] <= c && c < first_channel[j] + joints[j].channels.len());
    match joint {
        Some(j) => format!(
            "frame {frame}, joint '{}' {}",
            joints[j].name,
            joints[j].channels[c - first_channel[j]]
        ),
        None => format!("frame {frame}, channel {c}"),
    }
}
