//! What is on screen: the open character and the characters shown with it (the A/B
//! compare's B). Its own file so that a character ([`crate::character`]) and the compare
//! that holds a second one ([`crate::inspect`]) do not use each other.

use crate::character::Character;
use crate::inspect::AbCompare;

/// What is on screen: the character being edited and those shown with it.
pub struct Stage {
    /// The open character: the one the panels edit.
    pub main: Character,
    /// A/B compare (`None`: off): B is a second character, locked to the main one's
    /// timeline, beside it or over it.
    pub compare: Option<AbCompare>,
}

impl Stage {
    /// A stage showing `main` alone (no A/B compare).
    pub fn new(main: Character) -> Self {
        Self {
            main,
            compare: None,
        }
    }

    /// Every character on the stage, the open one first.
    pub fn characters(&self) -> impl Iterator<Item = &Character> + '_ {
        std::iter::once(&self.main).chain(self.compare.as_ref().map(|c| &c.b))
    }
}
