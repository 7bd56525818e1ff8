//! Searching the database: the `N` lowest-cost frames for a query. Three searches return
//! the same list, bit for bit (ties go to the lower frame index):
//! - [`search_reference`]: every frame scored one at a time; the oracle.
//! - [`search_brute_force`]: every frame scored, [`LANES`] frames per step from the
//!   database's blocks (structure of arrays: each step loads one dimension of eight
//!   frames, which the compiler turns into vector instructions); each lane sums its
//!   frame's dimensions in the same order as the reference, so each cost is the same
//!   float.
//! - [`search_accelerated`]: bounding boxes over runs of 64 and 16 consecutive frames (as
//!   in "Learned Motion Matching" and orangeduck/Motion-Matching) skip a run whose lower
//!   bound is above the `N`-th best cost; inside a run, a block stops summing once every
//!   lane's running cost is above it (the early exit). Squared terms are >= 0 and float
//!   addition is monotone, so a running sum never exceeds the full one: what is skipped
//!   could not have entered the list.
//!
//! The cost of a frame is the squared distance between the query and the frame's
//! normalised, weighted features (dimensions summed in order), plus
//! `current_clip_bias` when the frame is in the clip that is playing. Frames of the
//! playing clip within `exclude_window_secs` of its time are skipped: the caller
//! compares against continuing instead.

use super::database::{Database, FrameBox, LANES, PER_LARGE};
use super::FEATURE_GROUPS;

/// What is playing now, for the continuity rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Playing {
    /// Database clip (source) index.
    pub source: usize,
    /// Clip seconds.
    pub time_secs: f32,
}

/// One search.
#[derive(Clone, Debug)]
pub struct SearchParams<'a> {
    /// Normalised, weighted query (`Database::dims` long).
    pub query: &'a [f32],
    /// The playing clip and time, for the bias and the exclusion window; `None` when
    /// nothing plays.
    pub playing: Option<Playing>,
    /// Added to the cost of every frame of the playing clip (negative favours it).
    pub current_clip_bias: f32,
    /// Frames of the playing clip this close to its time (seconds, wrapped for looping
    /// clips) are not candidates.
    pub exclude_window_secs: f32,
    /// Frames must have every tag of this mask, and none of `exclude_tags`.
    pub require_tags: u32,
    /// Frames with any tag of this mask are not candidates.
    pub exclude_tags: u32,
    /// How many of the best frames to return (>= 1).
    pub top_n: usize,
}

impl<'a> SearchParams<'a> {
    /// The `top_n` best frames for `query` with no playing clip, tag or bias.
    pub fn plain(query: &'a [f32], top_n: usize) -> Self {
        Self {
            query,
            playing: None,
            current_clip_bias: 0.0,
            exclude_window_secs: 0.0,
            require_tags: 0,
            exclude_tags: 0,
            top_n,
        }
    }
}

/// A scored frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Database frame index (into [`Database::frames`]).
    pub frame: usize,
    /// Total cost, bias included.
    pub cost: f32,
}

/// Sorted best-first list of at most `n` candidates.
struct TopN {
    n: usize,
    items: Vec<Candidate>,
}

impl TopN {
    fn new(n: usize) -> Self {
        Self {
            n: n.max(1),
            items: Vec::with_capacity(n.max(1) + 1),
        }
    }

    /// The cost a frame must not exceed to have a chance; infinite until full.
    fn bound(&self) -> f32 {
        if self.items.len() < self.n {
            f32::INFINITY
        } else {
            self.items[self.n - 1].cost
        }
    }

    /// Keeps `c` if it is among the `n` lowest by cost, then frame index: the same list
    /// whatever order frames are offered in (the box search visits the most promising
    /// boxes first), and on equal costs the lower frame first, as a scan in index order
    /// keeps them.
    fn offer(&mut self, c: Candidate) {
        let before = |x: &Candidate| x.cost < c.cost || (x.cost == c.cost && x.frame < c.frame);
        if self.items.len() == self.n && self.items.last().is_some_and(before) {
            return;
        }
        let at = self.items.partition_point(before);
        self.items.insert(at, c);
        self.items.truncate(self.n);
    }
}

/// Squared distance, dimensions summed in order (shared by both searches).
#[inline]
fn distance(q: &[f32], f: &[f32]) -> f32 {
    let mut sum = 0.0f32;
    for (a, b) in q.iter().zip(f) {
        let d = a - b;
        sum += d * d;
    }
    sum
}

/// Lower bounds of the distance to `N` boxes at once (rows of `N` lows and highs, one
/// per dimension), summed on from `acc`: per dimension `max(lo - v, 0) + max(v - hi, 0)`,
/// the distance to the interval (one of the two terms is 0), squared, dimensions in
/// order. With `exit = Some((min_bias, bound))` it stops, returning `None`, once every
/// box's running sum plus `min_bias` is above `bound` (checked every 8 dimensions).
#[inline]
fn box_distances<const N: usize>(
    q: &[f32],
    rows: &[([f32; N], [f32; N])],
    mut acc: [f32; N],
    exit: Option<(f32, f32)>,
) -> Option<[f32; N]> {
    for (k, (&v, (lo, hi))) in q.iter().zip(rows).enumerate() {
        for l in 0..N {
            let d = (lo[l] - v).max(0.0) + (v - hi[l]).max(0.0);
            acc[l] += d * d;
        }
        if let Some((min_bias, bound)) = exit {
            if k % 8 == 7 && acc.iter().all(|&a| a + min_bias > bound) {
                return None;
            }
        }
    }
    Some(acc)
}

/// Squared distances of the [`LANES`] frames of a block (`dims` rows of one dimension
/// of each frame) to the query: lane `l` sums frame `l`'s dimensions in order, as
/// [`distance`] does, so it is the same float. With `exit = Some((min_bias, bound))` it
/// returns `None` as soon as every lane's running sum plus `min_bias` is above `bound`
/// (checked every 8 dimensions).
#[inline]
fn block_distances(
    q: &[f32],
    block: &[[f32; LANES]],
    exit: Option<(f32, f32)>,
) -> Option<[f32; LANES]> {
    let mut acc = [0.0f32; LANES];
    for (k, (&v, row)) in q.iter().zip(block).enumerate() {
        for l in 0..LANES {
            let d = row[l] - v;
            acc[l] += d * d;
        }
        if let Some((min_bias, bound)) = exit {
            if k % 8 == 7 && acc.iter().all(|&a| a + min_bias > bound) {
                return None;
            }
        }
    }
    Some(acc)
}

/// Why a frame was kept out of a search (the debugger lists such frames that would have
/// won).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// In a non-looping clip's end margin: playback would run off the end at once.
    ClipEnd,
    /// Lacks a tag the input requires.
    MissingTag,
    /// Has a tag the input excludes.
    ExcludedTag,
    /// Within the exclusion window of the playing frame: it would replay what plays.
    ExclusionWindow,
}

impl DropReason {
    /// A short phrase for the debugger's list.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClipEnd => "clip end",
            Self::MissingTag => "missing a required tag",
            Self::ExcludedTag => "excluded tag",
            Self::ExclusionWindow => "exclusion window",
        }
    }
}

/// The frames `p`'s search kept out that would have cost less than `below` (the best
/// candidate's cost; `None`: any), best first, at most `n`, each with why. Their cost is
/// what they would have had (the playing clip's bias included). Every frame is scored: for
/// the debugger, not for every frame of a run. Empty for a query of the wrong length.
pub fn dropped_candidates(
    db: &Database,
    p: &SearchParams<'_>,
    below: Option<f32>,
    n: usize,
) -> Vec<(Candidate, DropReason)> {
    if !check(db, p) || n == 0 {
        return Vec::new();
    }
    let rules = Rules { db, p };
    let mut out: Vec<(Candidate, DropReason)> = Vec::new();
    for f in 0..db.frames.len() {
        let Some((reason, bias)) = rules.drop_reason(f) else {
            continue;
        };
        let cost = distance(p.query, db.frame_features(f)) + bias;
        if below.is_some_and(|b| cost >= b) {
            continue;
        }
        if out.len() == n && out.last().is_some_and(|l| l.0.cost <= cost) {
            continue;
        }
        let at = out.partition_point(|x| x.0.cost <= cost);
        out.insert(at, (Candidate { frame: f, cost }, reason));
        out.truncate(n);
    }
    out
}

struct Rules<'a> {
    db: &'a Database,
    p: &'a SearchParams<'a>,
}

impl Rules<'_> {
    /// The frame's bias, or `None` when it may not be chosen.
    #[inline]
    fn bias(&self, f: usize) -> Option<f32> {
        let info = &self.db.frames[f];
        if !info.candidate
            || info.tags & self.p.require_tags != self.p.require_tags
            || info.tags & self.p.exclude_tags != 0
        {
            return None;
        }
        match self.p.playing {
            Some(pl) if pl.source == info.source as usize => {
                let c = &self.db.clips[pl.source];
                let mut gap = (info.time_secs - pl.time_secs).abs();
                if c.looping {
                    gap = gap.min(c.duration_secs - gap);
                }
                if gap <= self.p.exclude_window_secs {
                    None
                } else {
                    Some(self.p.current_clip_bias)
                }
            }
            _ => Some(0.0),
        }
    }

    /// Why frame `f` may not be chosen, and the bias it would have had; `None` when it
    /// may be.
    fn drop_reason(&self, f: usize) -> Option<(DropReason, f32)> {
        let info = &self.db.frames[f];
        let playing = self
            .p
            .playing
            .filter(|pl| pl.source == info.source as usize);
        let bias = if playing.is_some() {
            self.p.current_clip_bias
        } else {
            0.0
        };
        if !info.candidate {
            return Some((DropReason::ClipEnd, bias));
        }
        if info.tags & self.p.require_tags != self.p.require_tags {
            return Some((DropReason::MissingTag, bias));
        }
        if info.tags & self.p.exclude_tags != 0 {
            return Some((DropReason::ExcludedTag, bias));
        }
        match self.bias(f) {
            Some(_) => None,
            None => Some((DropReason::ExclusionWindow, bias)),
        }
    }

    /// The smallest bias any frame of a box can get.
    fn min_bias(&self, b: &FrameBox) -> f32 {
        match self.p.playing {
            Some(pl) => {
                let s = pl.source as u32;
                if b.sources.0 <= s && s <= b.sources.1 {
                    if b.sources.0 == b.sources.1 {
                        self.p.current_clip_bias
                    } else {
                        self.p.current_clip_bias.min(0.0)
                    }
                } else {
                    0.0
                }
            }
            None => 0.0,
        }
    }

    fn visit(&self, f: usize, top: &mut TopN) {
        if let Some(bias) = self.bias(f) {
            let cost = distance(self.p.query, self.db.frame_features(f)) + bias;
            top.offer(Candidate { frame: f, cost });
        }
    }

    /// The smallest bias any frame can get.
    fn min_bias_any(&self) -> f32 {
        match self.p.playing {
            Some(_) => self.p.current_clip_bias.min(0.0),
            None => 0.0,
        }
    }

    /// Scores block `b`'s frames and offers them in frame order. With `early_exit` the
    /// block is dropped once no lane can beat the list's bound. A frame whose distance
    /// plus the smallest bias is already above the bound is not looked up (its rules
    /// cannot make it cheaper).
    fn visit_block(&self, b: usize, top: &mut TopN, early_exit: bool) {
        let dims = self.db.dims;
        let min_bias = self.min_bias_any();
        let exit = (early_exit && top.bound().is_finite()).then(|| (min_bias, top.bound()));
        let Some(acc) = block_distances(
            self.p.query,
            &self.db.blocks[b * dims..(b + 1) * dims],
            exit,
        ) else {
            return;
        };
        let first = b * LANES;
        let count = LANES.min(self.db.frames.len() - first);
        for (l, &d) in acc.iter().enumerate().take(count) {
            if d + min_bias > top.bound() {
                continue;
            }
            if let Some(bias) = self.bias(first + l) {
                top.offer(Candidate {
                    frame: first + l,
                    cost: d + bias,
                });
            }
        }
    }
}

fn check(db: &Database, p: &SearchParams<'_>) -> bool {
    p.query.len() == db.dims
        && p.query.iter().all(|v| v.is_finite())
        && p.current_clip_bias.is_finite()
}

/// Every frame scored one at a time: the reference the other searches are tested
/// against. Empty when the query has the wrong length, the query or the clip bias is not
/// finite, or no frame qualifies.
pub fn search_reference(db: &Database, p: &SearchParams<'_>) -> Vec<Candidate> {
    if !check(db, p) {
        return Vec::new();
    }
    let rules = Rules { db, p };
    let mut top = TopN::new(p.top_n);
    for f in 0..db.frames.len() {
        rules.visit(f, &mut top);
    }
    top.items
}

/// Every frame scored, `LANES` at a time: [`search_reference`]'s list.
pub fn search_brute_force(db: &Database, p: &SearchParams<'_>) -> Vec<Candidate> {
    if !check(db, p) {
        return Vec::new();
    }
    let rules = Rules { db, p };
    let mut top = TopN::new(p.top_n);
    for b in 0..db.frames.len().div_ceil(LANES) {
        rules.visit_block(b, &mut top, false);
    }
    top.items
}

/// The same list as [`search_brute_force`], skipping runs of frames whose bounding box
/// cannot beat the current `N`-th best.
pub fn search_accelerated(db: &Database, p: &SearchParams<'_>) -> Vec<Candidate> {
    search_accelerated_counted(db, p).0
}

/// [`search_accelerated`], also returning how many frames fell in small boxes it did not
/// prune (it began scoring them; blocks among them may still stop early).
pub fn search_accelerated_counted(db: &Database, p: &SearchParams<'_>) -> (Vec<Candidate>, usize) {
    if !check(db, p) {
        return (Vec::new(), 0);
    }
    let mut visited = 0;
    let rules = Rules { db, p };
    let mut top = TopN::new(p.top_n);
    let dims = db.dims;
    // Small boxes are whole blocks (they start at multiples of SMALL_BOX).
    const _: () = assert!(super::database::SMALL_BOX.is_multiple_of(LANES));
    const _: () = assert!(super::database::LARGE_BOX.is_multiple_of(super::database::SMALL_BOX));
    let large = db.large_boxes.len();
    let blocks_of_large = large.div_ceil(LANES);
    let rows_of = |b: usize| &db.large_bounds[b * dims..(b + 1) * dims];
    let min_bias_any = rules.min_bias_any();
    // A first, cheap bound for every large box, eight per step: the distance over the
    // first dimensions only (a prefix of the sum is a lower bound of it too).
    let prefix = dims.min(8);
    let partial: Vec<[f32; LANES]> = (0..blocks_of_large)
        .map(|b| {
            box_distances(
                &p.query[..prefix],
                &rows_of(b)[..prefix],
                [0.0; LANES],
                None,
            )
            .unwrap_or([f32::INFINITY; LANES])
        })
        .collect();
    // A large box: its four small boxes' bounds at once, then the blocks of those that
    // can still beat the list.
    let mut visit_large = |li: usize, top: &mut TopN| {
        let rows = &db.small_bounds[li * dims..(li + 1) * dims];
        let exit = top.bound().is_finite().then(|| (min_bias_any, top.bound()));
        let Some(lbs) = box_distances(p.query, rows, [0.0; PER_LARGE], exit) else {
            return;
        };
        for (k, lb) in lbs.iter().enumerate() {
            let Some(small) = db.small_boxes.get(li * PER_LARGE + k) else {
                break;
            };
            if lb + rules.min_bias(small) > top.bound() {
                continue;
            }
            visited += small.frames.len();
            let blocks = small.frames.start / LANES..small.frames.end.div_ceil(LANES);
            for b in blocks {
                rules.visit_block(b, top, true);
            }
        }
    };
    // The most promising large box first: its frames make the bound tight, so most of
    // the others are then skipped on their bound alone (which frames win does not depend
    // on the order: `TopN` ranks by cost, then index).
    let seed = (0..large).min_by(|&a, &b| {
        let at = |i: usize| partial[i / LANES][i % LANES] + rules.min_bias(&db.large_boxes[i]);
        at(a).total_cmp(&at(b))
    });
    if let Some(li) = seed {
        visit_large(li, &mut top);
    }
    // Then every other, eight boxes per step: their bounds summed on from the prefix,
    // stopping once all eight are out.
    for (b, start) in partial.iter().enumerate() {
        let exit = top.bound().is_finite().then(|| (min_bias_any, top.bound()));
        let Some(lbs) = box_distances(&p.query[prefix..], &rows_of(b)[prefix..], *start, exit)
        else {
            continue;
        };
        for (l, &lb) in lbs.iter().enumerate() {
            let li = b * LANES + l;
            if li >= large || Some(li) == seed {
                continue;
            }
            if lb + rules.min_bias(&db.large_boxes[li]) > top.bound() {
                continue;
            }
            visit_large(li, &mut top);
        }
    }
    (top.items, visited)
}

/// Per-group costs of a frame for a query (weighted squared distances, in
/// [`FEATURE_GROUPS`] order; bias not included).
pub fn group_costs(db: &Database, query: &[f32], frame: usize) -> [f32; 6] {
    let f = db.frame_features(frame);
    let mut out = [0.0f32; 6];
    for (g, group) in FEATURE_GROUPS.iter().enumerate() {
        let r = db.group_range(*group);
        out[g] = distance(&query[r.clone()], &f[r]);
    }
    out
}

/// The cost of a frame for a query with a given bias (what continuing costs).
pub fn frame_cost(db: &Database, query: &[f32], frame: usize, bias: f32) -> f32 {
    distance(query, db.frame_features(frame)) + bias
}
