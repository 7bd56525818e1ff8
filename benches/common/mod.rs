//! Fixtures shared by the benches (each bench is its own crate and includes this with
//! `mod common;`).

use glam::{Quat, Vec3};
use stridescope::anim::{Clip, Interpolation, JointTracks, Skeleton, Track, Transform};

/// A 67-joint humanoid-like tree (spine, two 4-joint legs, two arms with 15 finger
/// joints each) with a 1 s clip, every joint animated in T, R and S.
///
/// `per_channel_keys == false`: 31 keys per channel, all channels on the same key times
/// (what glTF exporters write). `true`: every channel has its own key times (11 to 41
/// keys, as after per-channel key reduction), so each of the 201 channels is searched.
pub fn synthetic_67(per_channel_keys: bool) -> (Skeleton, Clip) {
    let mut parents: Vec<Option<usize>> = vec![None];
    let chain = |parent: usize, len: usize, parents: &mut Vec<Option<usize>>| -> usize {
        let mut p = parent;
        for _ in 0..len {
            parents.push(Some(p));
            p = parents.len() - 1;
        }
        p
    };
    let spine_top = chain(0, 6, &mut parents); // spine + neck + head
    for _ in 0..2 {
        chain(0, 4, &mut parents); // legs
    }
    for _ in 0..2 {
        let hand = chain(spine_top, 4, &mut parents); // clavicle, upper, lower, hand
        for _ in 0..5 {
            chain(hand, 3, &mut parents); // fingers
        }
    }
    parents.truncate(67);
    while parents.len() < 67 {
        parents.push(Some(0));
    }
    let n = parents.len();
    let names = (0..n).map(|i| format!("joint_{i}")).collect();
    let rest = vec![
        Transform {
            translation: Vec3::Y * 0.1,
            ..Transform::IDENTITY
        };
        n
    ];
    let skeleton = Skeleton::new(names, parents, rest).unwrap();
    let tracks = (0..n)
        .map(|j| {
            let phase = j as f32 * 0.37;
            let times = |channel: usize| -> Vec<f32> {
                if !per_channel_keys {
                    return (0..31).map(|i| i as f32 / 30.0).collect();
                }
                // 11..=41 keys, interior keys jittered by up to 0.4 of an interval.
                let id = (3 * j + channel) as f32;
                let keys = 11 + (3 * j + channel) * 7 % 31;
                (0..keys)
                    .map(|i| {
                        let jitter = if i == 0 || i == keys - 1 {
                            0.0
                        } else {
                            0.4 * (1.7 * i as f32 + id).sin()
                        };
                        (i as f32 + jitter) / (keys - 1) as f32
                    })
                    .collect()
            };
            let mut t = JointTracks::new(j);
            let times_t = times(0);
            t.translation = Some(
                Track::new(
                    Interpolation::Linear,
                    times_t.clone(),
                    times_t
                        .iter()
                        .map(|&s| Vec3::new((s * 6.0 + phase).sin() * 0.01, 0.1, 0.0))
                        .collect(),
                    "t",
                )
                .unwrap(),
            );
            let times_r = times(1);
            t.rotation = Some(
                Track::new(
                    Interpolation::Linear,
                    times_r.clone(),
                    times_r
                        .iter()
                        .map(|&s| {
                            Quat::from_euler(
                                glam::EulerRot::XYZ,
                                (s * 6.0 + phase).sin() * 0.5,
                                s,
                                0.2,
                            )
                        })
                        .collect(),
                    "r",
                )
                .unwrap(),
            );
            let times_s = times(2);
            let keys_s = times_s.len();
            t.scale = Some(
                Track::new(Interpolation::Linear, times_s, vec![Vec3::ONE; keys_s], "s").unwrap(),
            );
            t
        })
        .collect();
    let clip = Clip::new("synthetic".into(), tracks, vec![], n).unwrap();
    (skeleton, clip)
}
