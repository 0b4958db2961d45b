"""A small shop: pricing, inventory, order parsing."""
