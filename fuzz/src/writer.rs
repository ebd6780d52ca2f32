//! Indented C text. Generators write region bodies into their own `W` first (the clauses
//! of a construct depend on what its body uses) and append them afterwards.

#[derive(Debug, Default)]
pub struct W {
    pub s: String,
    pub ind: usize,
}

impl W {
    pub fn new(ind: usize) -> W {
        W {
            s: String::new(),
            ind,
        }
    }

    pub fn line(&mut self, t: impl AsRef<str>) {
        for _ in 0..self.ind {
            self.s.push_str("  ");
        }
        self.s.push_str(t.as_ref());
        self.s.push('\n');
    }

    /// `t {` and indent.
    pub fn open(&mut self, t: impl AsRef<str>) {
        let t = t.as_ref();
        if t.is_empty() {
            self.line("{");
        } else {
            self.line(format!("{t} {{"));
        }
        self.ind += 1;
    }

    pub fn close(&mut self) {
        self.ind -= 1;
        self.line("}");
    }

    pub fn append(&mut self, other: &W) {
        self.s.push_str(&other.s);
    }
}
