use price::discount;

#[test]
fn discount_of_ten_percent() {
    assert_eq!(discount(100, 10), 90);
}

#[test]
fn discount_rounds_up() {
    assert_eq!(discount(95, 30), 67);
}
