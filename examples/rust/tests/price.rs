use price::{discount, total};

#[test]
fn total_adds_prices() {
    assert_eq!(total(&[100, 250]), Ok(350));
}

#[test]
fn total_rejects_negative_prices() {
    assert!(total(&[100, -1]).is_err());
}

#[test]
fn discount_rounds_down() {
    assert_eq!(discount(95, 30), 66);
}
