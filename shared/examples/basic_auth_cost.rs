//! Benchmark: a wrong password for an existing user against a sign-in for
//! a user who does not exist. Both verify one Argon2id hash, so the two
//! medians should match. Run with
//! `cargo run --release -p shared --example basic_auth_cost`.

use std::time::Instant;

use shared::auth::password;

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..21)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let stored = password::hash("the real password").expect("a hash");
    let existing = median_ms(|| {
        assert!(!password::verify_or_stand_in("wrong", Some(&stored)));
    });
    let unknown = median_ms(|| {
        assert!(!password::verify_or_stand_in("wrong", None));
    });
    println!("wrong password, existing user: {existing:.1} ms (median of 21)");
    println!("any password, unknown user:    {unknown:.1} ms (median of 21)");
}
