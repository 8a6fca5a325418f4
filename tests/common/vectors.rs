//! The shared perft vectors: positions on which independent Fanorona implementations agree.

/// One position of `tests/data/perft-vectors.tsv` with its counts (default rules).
// Not every test that includes this module reads every count.
#[allow(dead_code)]
pub struct PerftVector {
    pub fen: &'static str,
    /// Legal turns, routes to the same result merged.
    pub turns: u64,
    /// perft 2, merged.
    pub perft2: u64,
    /// Legal routes, every spelling counted.
    pub turns_routes: u64,
    /// perft 2 counting every route.
    pub perft2_routes: u64,
}

/// Every vector of the file.
pub fn perft_vectors() -> Vec<PerftVector> {
    include_str!("../data/perft-vectors.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [fen, turns, perft2, turns_routes, perft2_routes] = fields[..] else {
                panic!("bad line {line}");
            };
            let number = |s: &str| s.parse::<u64>().unwrap();
            PerftVector {
                fen,
                turns: number(turns),
                perft2: number(perft2),
                turns_routes: number(turns_routes),
                perft2_routes: number(perft2_routes),
            }
        })
        .collect()
}
