//! `accfuzz gen SEED [--features=LIST] [--reverse]`: print one random, race-free,
//! deterministic OpenACC C program (`--reverse`: the same program with its partitioned loops
//! run backwards, a self-check: its plain C build must print the same). `accfuzz features`:
//! list the feature names. scripts/fuzz runs it; docs/fuzzer.md describes it.

use clap::{Parser, Subcommand};

use accfuzz::{generate_with, Features};

/// Differential fuzzer for accc: random race-free, UB-free OpenACC C programs whose plain C
/// build is the reference (docs/fuzzer.md).
#[derive(Parser)]
// A flag given twice takes its last value, as it did before clap.
#[command(name = "accfuzz", version, args_override_self = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print one random OpenACC C program.
    Gen {
        /// The same seed always gives the same program.
        seed: u64,
        /// Features to use: comma-separated names, 'all' or 'none'; a list that starts with
        /// '-name' takes names away from every feature. Default: every feature.
        // A list may start with '-' (`--features -kernels`).
        #[arg(long, value_name = "LIST", value_parser = Features::parse, allow_hyphen_values = true)]
        features: Option<Features>,
        /// Run the partitioned loops backwards: the plain C build must print the same (a
        /// self-check of the generator).
        #[arg(long)]
        reverse: bool,
    },
    /// List the feature names.
    Features,
}

fn main() {
    match Cli::parse().command {
        Command::Features => println!("{}", Features::all()),
        Command::Gen { seed, features, reverse } => {
            let features = features.unwrap_or_else(Features::default_set);
            print!("{}", generate_with(seed, &features, reverse).text);
        }
    }
}
