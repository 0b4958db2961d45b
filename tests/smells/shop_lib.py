"""The small library (`shop.model.Item`: a getter, a method with logic) that the end-to-end smell
tests analyse."""

SHOP_LIB = {
    "src/shop/__init__.py": "",
    "src/shop/model.py": """\
        class Item:
            def __init__(self, name, price):
                self.name = name
                self.price = price

            def label(self):
                return self.name

            def total(self, n):
                if n < 0:
                    raise ValueError("negative")
                return self.price * n
        """,
}
