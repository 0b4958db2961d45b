use price::pricing::total;

#[test]
fn total_adds_prices() {
    let sum: String = price::total(&[100, 250]).unwrap();
    assert_eq!(sum, "350");
}
