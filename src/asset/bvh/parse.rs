//! The HIERARCHY of a BVH file (`ROOT`, `JOINT`, `End Site`, `OFFSET`, `CHANNELS`) into
//! joints, and the types the whole file parses into ([`Bvh`]); the MOTION section is read
//! by `motion.rs` after this, tokens come from [`super::lexer`]. Every error names the line
//! it is about.

use std::fmt;

use super::lexer::{err, number, shown, Lexer, ParseError, Token};

/// Most joints a file may declare (End Sites included).
pub(super) const MAX_JOINTS: usize = 4096;

/// Most channels one joint may have (three positions and three rotations).
const MAX_JOINT_CHANNELS: usize = 6;

/// One animated degree of freedom of a joint; the axis is 0 (X), 1 (Y) or 2 (Z).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Channel {
    /// Replaces that component of the joint's OFFSET (file units).
    Position(usize),
    /// Degrees about that axis; a joint's rotations compose in the order listed.
    Rotation(usize),
}

impl Channel {
    /// `Xposition` ... `Zrotation`, any letter case.
    fn parse(token: &str) -> Option<Channel> {
        let (axis, kind) = token.split_at_checked(1)?;
        let axis = match axis {
            "X" | "x" => 0,
            "Y" | "y" => 1,
            "Z" | "z" => 2,
            _ => return None,
        };
        if kind.eq_ignore_ascii_case("position") {
            Some(Channel::Position(axis))
        } else if kind.eq_ignore_ascii_case("rotation") {
            Some(Channel::Rotation(axis))
        } else {
            None
        }
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (axis, kind) = match *self {
            Channel::Position(a) => (a, "position"),
            Channel::Rotation(a) => (a, "rotation"),
        };
        write!(f, "{}{kind}", ["X", "Y", "Z"][axis.min(2)])
    }
}

/// One joint of the hierarchy, in the file's order (parent before child).
#[derive(Clone, Debug)]
pub(super) struct Joint {
    pub(super) name: String,
    pub(super) parent: Option<usize>,
    /// OFFSET, file units, in the parent's space.
    pub(super) offset: [f64; 3],
    /// In the order listed; empty for End Sites.
    pub(super) channels: Vec<Channel>,
    pub(super) end_site: bool,
    /// Line of its `ROOT`, `JOINT` or `End Site`.
    pub(super) line: usize,
    has_offset: bool,
    has_channels: bool,
}

/// A parsed file.
#[derive(Debug)]
pub(super) struct Bvh {
    pub(super) joints: Vec<Joint>,
    /// Index of each joint's first channel within a frame's values.
    pub(super) first_channel: Vec<usize>,
    /// Values per frame (every joint's channels).
    pub(super) channels_per_frame: usize,
    /// Complete frames in `values`.
    pub(super) frames: usize,
    /// Line of `Frames:` and of `Frame Time:`.
    pub(super) frames_line: usize,
    pub(super) frame_time_line: usize,
    /// Seconds per frame, as written.
    pub(super) frame_time: f64,
    /// `frames * channels_per_frame` values, frame after frame.
    pub(super) values: Vec<f32>,
    /// Set when the data stopped early and only the complete frames were kept, or ran on
    /// past the declared frames (which were kept, the rest ignored): the warning.
    pub(super) truncated: Option<String>,
}

impl Bvh {
    /// The values of `joint` in frame `frame` (one per channel), or `None` out of range.
    pub(super) fn row(&self, frame: usize, joint: usize) -> Option<&[f32]> {
        let start = frame
            .checked_mul(self.channels_per_frame)?
            .checked_add(*self.first_channel.get(joint)?)?;
        let len = self.joints.get(joint)?.channels.len();
        self.values.get(start..start.checked_add(len)?)
    }
}

/// The joints of the HIERARCHY that opens the file, `lx` left after `MOTION`.
pub(super) fn hierarchy(lx: &mut Lexer<'_>) -> Result<Vec<Joint>, ParseError> {
    let first = lx.next().ok_or_else(|| err(1, "the file is empty"))?;
    if !first.text.eq_ignore_ascii_case("HIERARCHY") {
        return Err(err(
            first.line,
            format!(
                "not a BVH file: it starts with '{}', not HIERARCHY",
                shown(first.text)
            ),
        ));
    }
    joints(lx)
}

/// Everything between HIERARCHY and MOTION (MOTION consumed).
fn joints(lx: &mut Lexer<'_>) -> Result<Vec<Joint>, ParseError> {
    let mut joints: Vec<Joint> = Vec::new();
    // Open joints, innermost last.
    let mut stack: Vec<usize> = Vec::new();
    loop {
        let Some(tok) = lx.next() else {
            let line = lx.last_line;
            return Err(match stack.last() {
                Some(&j) => err(
                    line,
                    format!(
                        "the file ends inside joint '{}' (line {}): a '}}' is missing",
                        joints[j].name, joints[j].line
                    ),
                ),
                None if joints.is_empty() => err(line, "the HIERARCHY has no ROOT"),
                None => err(
                    line,
                    "the file ends after the hierarchy: there is no MOTION section",
                ),
            });
        };
        let kw = tok.text;
        let is_root = kw.eq_ignore_ascii_case("ROOT");
        if is_root || kw.eq_ignore_ascii_case("JOINT") {
            let what = if is_root { "ROOT" } else { "JOINT" };
            if let (true, Some(&open)) = (is_root, stack.last()) {
                return Err(err(
                    tok.line,
                    format!(
                        "ROOT inside joint '{}' (line {}): a '}}' is missing before it",
                        joints[open].name, joints[open].line
                    ),
                ));
            }
            if !is_root && stack.is_empty() {
                return Err(err(
                    tok.line,
                    if joints.is_empty() {
                        "JOINT before any ROOT".to_string()
                    } else {
                        "JOINT outside every joint: one '}' too many before it".to_string()
                    },
                ));
            }
            let rest = lx.rest_of_line();
            let (name, brace) = match rest.strip_suffix('{') {
                Some(n) => (n.trim_end(), true),
                None => (rest, false),
            };
            if name.is_empty() {
                return Err(err(tok.line, format!("{what} without a name")));
            }
            let parent = stack.last().copied();
            open_joint(&mut joints, name.to_string(), parent, false, tok.line)?;
            if !brace {
                expect_brace(lx, &format!("{what} '{name}'"))?;
            }
            stack.push(joints.len() - 1);
        } else if kw.eq_ignore_ascii_case("End") {
            let site = lx.next();
            let brace = match site {
                Some(t) if t.text.eq_ignore_ascii_case("Site") => false,
                Some(t) if t.text.eq_ignore_ascii_case("Site{") => true,
                _ => return Err(err(tok.line, "'End' is not followed by 'Site'")),
            };
            let Some(&parent) = stack.last() else {
                return Err(err(tok.line, "End Site outside every joint"));
            };
            if joints[parent].end_site {
                return Err(err(tok.line, "End Site inside an End Site"));
            }
            let name = format!("{}_end", joints[parent].name);
            open_joint(&mut joints, name, Some(parent), true, tok.line)?;
            if !brace {
                expect_brace(lx, "End Site")?;
            }
            stack.push(joints.len() - 1);
        } else if kw == "}" {
            let Some(j) = stack.pop() else {
                return Err(err(tok.line, "'}' closes no joint (one too many)"));
            };
            let joint = &joints[j];
            let what = if joint.end_site {
                format!("the End Site of '{}'", parent_name(&joints, j))
            } else {
                format!("joint '{}'", joint.name)
            };
            if !joint.has_offset {
                return Err(err(joint.line, format!("{what} has no OFFSET")));
            }
            if !joint.end_site && !joint.has_channels {
                return Err(err(joint.line, format!("{what} has no CHANNELS line")));
            }
        } else if kw.eq_ignore_ascii_case("OFFSET") {
            let Some(&j) = stack.last() else {
                return Err(err(tok.line, "OFFSET outside every joint"));
            };
            if joints[j].has_offset {
                return Err(err(
                    tok.line,
                    format!("joint '{}' has a second OFFSET", joints[j].name),
                ));
            }
            for k in 0..3 {
                let Some(t) = lx.next() else {
                    return Err(err(lx.last_line, "the file ends inside an OFFSET"));
                };
                joints[j].offset[k] = number(t, "OFFSET value")?;
            }
            joints[j].has_offset = true;
        } else if kw.eq_ignore_ascii_case("CHANNELS") {
            let Some(&j) = stack.last() else {
                return Err(err(tok.line, "CHANNELS outside every joint"));
            };
            channels(lx, tok, &mut joints[j])?;
        } else if kw.eq_ignore_ascii_case("MOTION") {
            if let Some(&j) = stack.last() {
                return Err(err(
                    tok.line,
                    format!(
                        "MOTION inside joint '{}' (line {}): a '}}' is missing",
                        joints[j].name, joints[j].line
                    ),
                ));
            }
            if joints.is_empty() {
                return Err(err(tok.line, "the HIERARCHY has no ROOT"));
            }
            return Ok(joints);
        } else if kw == "{" {
            return Err(err(
                tok.line,
                "'{' without a ROOT, JOINT or End Site before it",
            ));
        } else {
            return Err(err(
                tok.line,
                format!("unexpected '{}' in the hierarchy", shown(kw)),
            ));
        }
    }
}

fn parent_name(joints: &[Joint], j: usize) -> &str {
    joints[j]
        .parent
        .and_then(|p| joints.get(p))
        .map_or("", |p| p.name.as_str())
}

fn open_joint(
    joints: &mut Vec<Joint>,
    name: String,
    parent: Option<usize>,
    end_site: bool,
    line: usize,
) -> Result<(), ParseError> {
    if joints.len() >= MAX_JOINTS {
        return Err(err(
            line,
            format!("more than {MAX_JOINTS} joints: not a skeleton this previewer can show"),
        ));
    }
    joints.push(Joint {
        name,
        parent,
        offset: [0.0; 3],
        channels: Vec::new(),
        end_site,
        line,
        has_offset: false,
        has_channels: false,
    });
    Ok(())
}

fn expect_brace(lx: &mut Lexer<'_>, after: &str) -> Result<(), ParseError> {
    match lx.next() {
        Some(t) if t.text == "{" => Ok(()),
        Some(t) => Err(err(
            t.line,
            format!("expected '{{' after {after}, found '{}'", shown(t.text)),
        )),
        None => Err(err(
            lx.last_line,
            format!("the file ends where '{{' should open {after}"),
        )),
    }
}

/// `CHANNELS N name...` (the keyword already read) into `joint`.
fn channels(lx: &mut Lexer<'_>, keyword: Token<'_>, joint: &mut Joint) -> Result<(), ParseError> {
    if joint.end_site {
        return Err(err(keyword.line, "an End Site cannot have CHANNELS"));
    }
    if joint.has_channels {
        return Err(err(
            keyword.line,
            format!("joint '{}' has a second CHANNELS line", joint.name),
        ));
    }
    let Some(count) = lx.next() else {
        return Err(err(lx.last_line, "the file ends inside CHANNELS"));
    };
    let n = match count.text.parse::<usize>() {
        Ok(n) if n <= MAX_JOINT_CHANNELS => n,
        Ok(n) => {
            return Err(err(
                count.line,
                format!("CHANNELS {n}: a joint has at most {MAX_JOINT_CHANNELS} channels"),
            ))
        }
        Err(_) => {
            return Err(err(
                count.line,
                format!(
                    "CHANNELS is followed by '{}', not a channel count",
                    shown(count.text)
                ),
            ))
        }
    };
    for _ in 0..n {
        let Some(t) = lx.next() else {
            return Err(err(lx.last_line, "the file ends inside CHANNELS"));
        };
        let Some(c) = Channel::parse(t.text) else {
            return Err(err(
                t.line,
                format!(
                    "unknown channel '{}' in the CHANNELS of joint '{}' (expected Xposition, \
                     Yposition, Zposition, Xrotation, Yrotation or Zrotation; CHANNELS {n} \
                     names {n})",
                    shown(t.text),
                    joint.name
                ),
            ));
        };
        if joint.channels.contains(&c) {
            return Err(err(
                t.line,
                format!("channel {c} is listed twice for joint '{}'", joint.name),
            ));
        }
        joint.channels.push(c);
    }
    joint.has_channels = true;
    Ok(())
}
