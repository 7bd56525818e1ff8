//! The built-in demo character (stub: being written).
