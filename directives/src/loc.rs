//! Where a directive or clause is in the user's source.

use std::fmt;

/// A source position as the user sees it: the file name as written, 1-based line and
/// column (a column counts bytes, as clang's do). The contract's `__acc_begin` carries one
/// (`i32` line and column); the driver and the pass both report errors at one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loc {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

impl Loc {
    /// A position from the driver's `usize` counts; one past `u32::MAX` (never in a real
    /// source) saturates.
    pub fn at(file: &str, line: usize, col: usize) -> Loc {
        let saturate = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Loc { file: file.to_string(), line: saturate(line), col: saturate(col) }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_as_compilers_do() {
        assert_eq!(Loc::at("t.c", 3, 9).to_string(), "t.c:3:9");
        assert_eq!(Loc::at("t.c", usize::MAX, 1).line, u32::MAX);
    }
}
