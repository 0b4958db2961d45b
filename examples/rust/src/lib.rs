//! Prices in cents.

/// The sum of the given prices; a negative price is an error.
pub fn total(cents: &[i64]) -> Result<i64, String> {
    let mut sum = 0;
    for &c in cents {
        if c < 0 {
            return Err(format!("negative price: {c}"));
        }
        sum += c;
    }
    Ok(sum)
}

/// The price after a discount of `pct` percent, rounded down.
pub fn discount(cents: i64, pct: i64) -> i64 {
    assert!((0..=100).contains(&pct), "discount out of range: {pct}");
    cents * (100 - pct) / 100
}
