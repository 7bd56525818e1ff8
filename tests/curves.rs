//! Curve view data (issue 10): the sampled curves equal the track values, Euler angles stay
//! continuous through three full turns and near gimbal lock, in every order.

use glam::{Quat, Vec3};
use stridescope::anim::curves::{continue_euler, EulerOrder, JointCurves};
use stridescope::anim::{Clip, Interpolation, JointTracks, Track, Transform};

fn spin_clip(axis: Vec3, turns: f32, tilt_deg: f32) -> Clip {
    // 3 turns over 3 s in 121 keys, tilted about another axis.
    let times: Vec<f32> = (0..=120).map(|i| i as f32 * 3.0 / 120.0).collect();
    let values = times
        .iter()
        .map(|&t| {
            Quat::from_rotation_x(tilt_deg.to_radians())
                * Quat::from_axis_angle(axis, std::f32::consts::TAU * turns * t / 3.0)
        })
        .collect();
    let mut j = JointTracks::new(0);
    j.rotation = Some(Track::new(Interpolation::Linear, times, values, "spin").unwrap());
    j.translation = Some(
        Track::new(
            Interpolation::Linear,
            vec![0.0, 1.5, 3.0],
            vec![
                Vec3::ZERO,
                Vec3::new(0.0, 0.5, 2.0),
                Vec3::new(1.0, 0.0, 4.0),
            ],
            "move",
        )
        .unwrap(),
    );
    Clip::new("Spin".into(), vec![j], vec![], 1).unwrap()
}

#[test]
fn curves_equal_the_track_values() {
    let clip = spin_clip(Vec3::Y, 3.0, 0.0);
    let c = JointCurves::sample(&clip, 0, &Transform::IDENTITY, EulerOrder::Xyz, 50).unwrap();
    let tr = clip.joint_tracks(0).unwrap().translation.as_ref().unwrap();
    let rot = clip.joint_tracks(0).unwrap().rotation.as_ref().unwrap();
    for t in [0.0f32, 0.75, 1.5, 2.2, 3.0] {
        let i = c
            .times
            .iter()
            .position(|&x| (x - t).abs() < 1e-6)
            .expect("a key time");
        let p = tr.sample(t);
        for k in 0..3 {
            assert!((c.translation[k][i] - p[k]).abs() < 1e-6, "t {t} axis {k}");
        }
        let q = rot.sample(t);
        let back = EulerOrder::Xyz.quat([c.euler_deg[0][i], c.euler_deg[1][i], c.euler_deg[2][i]]);
        assert!(back.dot(q).abs() > 1.0 - 1e-5, "t {t}: {back:?} vs {q:?}");
        let cq = Quat::from_xyzw(
            c.quaternion[0][i],
            c.quaternion[1][i],
            c.quaternion[2][i],
            c.quaternion[3][i],
        );
        assert!(cq.dot(q).abs() > 1.0 - 1e-6);
        assert_eq!(c.scale[0][i], 1.0);
    }
    // Hand-computed: halfway through the translation's second key the value is (0, 0.5, 2).
    let i = c.times.iter().position(|&x| x == 1.5).unwrap();
    assert_eq!(
        [
            c.translation[0][i],
            c.translation[1][i],
            c.translation[2][i]
        ],
        [0.0, 0.5, 2.0]
    );
    assert_eq!(c.translation_keys.as_deref(), Some(&[0.0, 1.5, 3.0][..]));
    assert_eq!(c.rotation_keys.as_ref().unwrap().len(), 121);
    assert!(c.scale_keys.is_none());
}

#[test]
fn three_turns_unwrap_without_jumps_in_every_order() {
    for order in EulerOrder::ALL {
        for (axis, tilt) in [(Vec3::Y, 0.0), (Vec3::Z, 20.0), (Vec3::X, 0.0)] {
            let clip = spin_clip(axis, 3.0, tilt);
            let c = JointCurves::sample(&clip, 0, &Transform::IDENTITY, order, 400).unwrap();
            for k in 0..3 {
                for w in c.euler_deg[k].windows(2) {
                    // 121 keys over 3 turns: 9 degrees per key, well under a flip.
                    assert!(
                        (w[1] - w[0]).abs() < 20.0,
                        "{} spin about {axis}: angle {k} jumps {} -> {}",
                        order.label(),
                        w[0],
                        w[1]
                    );
                }
            }
            // Every sample is still the same rotation.
            for i in 0..c.times.len() {
                let e = [c.euler_deg[0][i], c.euler_deg[1][i], c.euler_deg[2][i]];
                let q = clip
                    .joint_tracks(0)
                    .unwrap()
                    .rotation
                    .as_ref()
                    .unwrap()
                    .sample(c.times[i]);
                assert!(
                    order.quat(e).dot(q).abs() > 1.0 - 1e-4,
                    "{} at {}",
                    order.label(),
                    c.times[i]
                );
            }
            // The spin about a single axis ends three turns from where it started.
            if tilt == 0.0 {
                let axis_index = [Vec3::X, Vec3::Y, Vec3::Z]
                    .iter()
                    .position(|a| *a == axis)
                    .unwrap();
                let k = order.axes().iter().position(|&a| a == axis_index).unwrap();
                let span = c.euler_deg[k].last().unwrap() - c.euler_deg[k][0];
                // The middle angle of an order only reaches +-90: a spin about that axis
                // passes gimbal lock, so it is not a ramp there.
                if k != 1 {
                    assert!(
                        (span.abs() - 1080.0).abs() < 0.5,
                        "{}: {span}",
                        order.label()
                    );
                }
            }
        }
    }
}

#[test]
fn continue_euler_picks_the_nearest_equivalent() {
    // 179 -> -179 is 2 degrees on, not 358 back.
    assert_eq!(
        continue_euler([0.0, 0.0, 179.0], [0.0, 0.0, -179.0]),
        [0.0, 0.0, 181.0]
    );
    // Past gimbal lock: (10, 95, 20) is written as its twin (190, 85, 200); from
    // (10, 89, 20) the continuation is back near the previous triplet.
    let next = continue_euler([10.0, 89.0, 20.0], [190.0, 85.0, 200.0]);
    assert!(
        (next[0] - 10.0).abs() < 1e-4 && (next[1] - 95.0).abs() < 1e-4,
        "{next:?}"
    );
}
