//! Generator properties: determinism, feature selection, bounded size.

use accfuzz::{generate, generate_with, Feature, Features};

fn feats(list: &str) -> Features {
    Features::parse(list).unwrap()
}

#[test]
fn same_seed_same_program() {
    for seed in [0, 1, 2, 17, 12345, u64::MAX] {
        let a = generate(seed, &Features::all()).text;
        let b = generate(seed, &Features::all()).text;
        assert_eq!(a, b, "seed {seed}");
    }
    assert_ne!(
        generate(1, &Features::all()).text,
        generate(2, &Features::all()).text
    );
}

/// Text that only a program using the feature contains.
fn marker(f: Feature, text: &str) -> bool {
    let has = |s: &str| text.contains(s);
    match f {
        Feature::Nest => {
            has("#pragma acc loop worker")
                || has("#pragma acc loop vector")
                || has("#pragma acc loop independent")
        }
        Feature::Data => has("#pragma acc data "),
        Feature::EnterExit => has("#pragma acc enter data ") && has("#pragma acc exit data "),
        Feature::Update => has("#pragma acc update "),
        Feature::Private => has(" private(") || has(" pb"),
        Feature::FirstPrivate => has("firstprivate("),
        Feature::Swap => has("t = u;"),
        Feature::Kernels => has("#pragma acc kernels"),
        Feature::Collapse => has("collapse("),
        Feature::Launch => has("num_gangs(") || has("num_workers(") || has("vector_length("),
        Feature::Local => text.lines().any(|l| {
            l.trim_start().starts_with(|c: char| c.is_ascii_lowercase())
                && l.contains(" a")
                && l.contains("[NI]")
        }),
        Feature::Reduce => has("reduction("),
        Feature::Tile => has(" tile("),
        Feature::Shapes => {
            has("--)")
                || has("+= 2)")
                || has("< ni")
                || has("< nj")
                || has("< nk")
                || has("< np")
                || has("- 1;")
        }
        Feature::Atomic => has("#pragma acc atomic"),
        Feature::Routine => has("#pragma acc routine"),
        Feature::Async => has(" async(") && has("wait"),
        Feature::Finalize => {
            has(" finalize")
                || text.lines().any(|l| {
                    let l = l.trim_start();
                    l.starts_with("acc_copyout_finalize(") || l.starts_with("acc_delete_finalize(")
                })
        }
        Feature::IfPresent => has(" if_present"),
        Feature::Api => text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("acc_") || l.starts_with("printf(\"present ")
        }),
        // Semantic features without a unique spelling: checked through `used` only.
        Feature::Comm | Feature::Single => true,
    }
}

#[test]
fn each_feature_alone_is_generated_and_nothing_else() {
    for f in accfuzz::features::ALL {
        // Communication and single code live between the levels of a nest.
        let want = match f {
            Feature::Comm | Feature::Single => feats(&format!("nest,{}", f.name())),
            // Updates need data that stays present across host code.
            Feature::Update => feats("data,update"),
            // Tiled nests are collapsed nests written with tile instead.
            Feature::Tile => feats("collapse,tile"),
            // The acc_* routines spell enter/exit data and updates.
            Feature::Api => feats("enterexit,api"),
            _ => feats(f.name()),
        };
        let mut seen = false;
        for seed in 1..=6 {
            let p = generate(seed, &want);
            assert!(
                p.used.is_subset(&want),
                "{}: seed {seed} used {}",
                f.name(),
                p.used
            );
            assert!(
                p.text.contains("#pragma acc parallel")
                    || p.text.contains("#pragma acc kernels")
                    || p.text.contains("#pragma acc serial"),
                "{}: seed {seed} has no compute region",
                f.name()
            );
            if p.used.has(f) {
                seen = true;
                assert!(
                    marker(f, &p.text),
                    "{}: seed {seed} claims the feature but lacks its text",
                    f.name()
                );
            }
        }
        assert!(seen, "feature {} never generated", f.name());
    }
}

#[test]
fn disabled_features_leave_no_trace() {
    for seed in 1..=10 {
        let p = generate(seed, &Features::none());
        assert!(p.used.is_empty(), "seed {seed}: {}", p.used);
        for f in accfuzz::features::ALL {
            if matches!(
                f,
                Feature::Comm | Feature::Single | Feature::Shapes | Feature::Local
            ) {
                continue;
            }
            assert!(
                !marker(f, &p.text),
                "seed {seed}: feature {} appears while disabled",
                f.name()
            );
        }
        let p = generate(seed, &feats("-kernels,-swap,-data"));
        for f in [Feature::Kernels, Feature::Swap, Feature::Data] {
            assert!(
                !marker(f, &p.text),
                "seed {seed}: {} appears while disabled",
                f.name()
            );
        }
    }
}

#[test]
fn default_programs_use_most_features() {
    let all = Features::all();
    let mut total = 0;
    for seed in 1..=20 {
        total += generate(seed, &all).used.len();
    }
    assert!(
        total >= 20 * (all.len() - 2),
        "on average fewer than n-2 features per program: {total}"
    );
}

#[test]
fn programs_stay_small() {
    for seed in 1..=300 {
        let p = generate(seed, &Features::all());
        let lines = p.text.lines().count();
        assert!(
            lines < 900 && p.text.len() < 96 * 1024,
            "seed {seed}: {lines} lines, {} bytes",
            p.text.len()
        );
        let regions = p.text.matches("#pragma acc parallel").count()
            + p.text.matches("#pragma acc kernels").count()
            + p.text.matches("#pragma acc serial").count();
        assert!(
            (1..=13).contains(&regions),
            "seed {seed}: {regions} compute regions"
        );
        for def in ["NI", "NJ", "NK"] {
            let n: i64 = p
                .text
                .lines()
                .find_map(|l| l.strip_prefix(&format!("#define {def} ")))
                .unwrap()
                .parse()
                .unwrap();
            assert!((1..=77).contains(&n), "seed {seed}: {def} = {n}");
        }
    }
}

#[test]
fn reverse_changes_only_partitioned_loop_headers() {
    for seed in 1..=30 {
        let a = generate(seed, &Features::all()).text;
        let b = generate_with(seed, &Features::all(), true).text;
        let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
        assert_eq!(la.len(), lb.len(), "seed {seed}");
        for (x, y) in la.iter().zip(&lb) {
            assert!(
                x == y
                    || (x.trim_start().starts_with("for (") && y.trim_start().starts_with("for (")),
                "seed {seed}: {x} / {y}"
            );
        }
    }
}
