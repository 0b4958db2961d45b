use std::sync::atomic::{AtomicI64, Ordering};

use price::total;

static CART: AtomicI64 = AtomicI64::new(0);

#[test]
fn a_add_to_cart() {
    CART.store(total(&[100, 250]).unwrap(), Ordering::SeqCst);
    assert_eq!(CART.load(Ordering::SeqCst), 350);
}

#[test]
fn b_cart_total() {
    assert_eq!(total(&[CART.load(Ordering::SeqCst)]), Ok(350));
}
