//! A steady blend allocates nothing per frame, events included: the demo's default graph (1D blend space
//! Walk/Run by speed, cycle-synced, plus the masked additive Wave layer) advanced and
//! evaluated for two seconds counts its heap allocations on this thread.
//!
//! One test in this binary on purpose: the counting allocator is process-wide (the count
//! is per thread, but a lone test keeps the harness out of the way).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the counter is a thread-local Cell with a
// const initialiser, which itself never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}

#[test]
fn a_steady_blend_allocates_nothing_per_frame() {
    let model = stridescope::asset::load_or_demo(None).unwrap();
    let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
    let additive: Vec<bool> = model.clips.iter().map(|c| c.is_additive()).collect();
    let def = stridescope::graph::def::default_graph(&names, &additive).unwrap();
    let mut g = stridescope::graph::PoseGraph::new(&model, &def).unwrap();
    // Between walk and run, waving: two synced inputs and a masked additive layer.
    g.params_mut().set_float("speed", 2.4).unwrap();
    g.params_mut().set_float("wave", 1.0).unwrap();
    let dt = 1.0 / 60.0;
    // Let the state machine settle into Move (its cross-fade from Idle allocates the
    // first time each state is entered).
    for _ in 0..240 {
        g.advance(&model, dt).unwrap();
    }
    let (mut quiet, mut eventful, mut event_frames) = (0u64, 0u64, 0u32);
    for _ in 0..120 {
        let before = allocations();
        g.advance(&model, dt).unwrap();
        let n = allocations() - before;
        if g.events().is_empty() {
            quiet += n;
        } else {
            eventful += n;
            event_frames += 1;
        }
    }
    assert!(
        g.status(&model).iter().filter(|s| s.weight > 0.0).count() >= 3,
        "not a blend: {:?}",
        g.status(&model)
    );
    // Nothing allocates, not even a frame that fires a foot event: the names are
    // borrowed from the markers and copied into strings kept from earlier frames.
    assert_eq!(quiet, 0, "allocations on frames without events");
    assert!(
        event_frames >= 8,
        "two feet over two seconds: {event_frames} event frames"
    );
    assert_eq!(eventful, 0, "allocations on {event_frames} event frames");
}
