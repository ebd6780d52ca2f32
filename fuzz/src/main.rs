//! `accfuzz gen SEED [--features=LIST] [--reverse]`: print one random, race-free,
//! deterministic OpenACC C program (`--reverse`: the same program with its partitioned loops
//! run backwards, a self-check: its plain C build must print the same). `accfuzz features`:
//! list the feature names.

use std::process::ExitCode;

use accfuzz::{generate_with, Features};

fn usage() -> ExitCode {
    eprintln!("usage: accfuzz gen SEED [--features=LIST] [--reverse]   (LIST: comma-separated, 'all', 'none', '-name')");
    eprintln!("       accfuzz features");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("features") => {
            println!("{}", Features::all());
            ExitCode::SUCCESS
        }
        Some("gen") => {
            let mut seed = None;
            let mut feats = Features::default_set();
            let mut reverse = false;
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                let list = if let Some(l) = a.strip_prefix("--features=") {
                    Some(l.to_string())
                } else if a == "--features" {
                    it.next().cloned()
                } else {
                    None
                };
                if let Some(l) = list {
                    match Features::parse(&l) {
                        Ok(f) => feats = f,
                        Err(e) => {
                            eprintln!("accfuzz: {e}");
                            return ExitCode::from(2);
                        }
                    }
                } else if a == "--reverse" {
                    reverse = true;
                } else if let Ok(s) = a.parse::<u64>() {
                    seed = Some(s);
                } else {
                    return usage();
                }
            }
            let Some(seed) = seed else { return usage() };
            print!("{}", generate_with(seed, &feats, reverse).text);
            ExitCode::SUCCESS
        }
        _ => usage(),
    }
}
