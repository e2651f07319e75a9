"""The catalog: products and their variants, each variant an item the store sells."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, Integer, String, Text, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from customer_service.domain import Product, Variant
from customer_service.store.core import StoreCore
from customer_service.store.money import amount_from_cents, cents
from customer_service.store.tables import Base

__all__ = [
    "CatalogStore",
    "ProductRow",
    "VariantRow",
    "add_products",
    "read_products",
    "read_variants",
]


class ProductRow(Base):
    __tablename__ = "products"

    product_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    # The catalog's order, as it was loaded: listings read the same each time.
    position: Mapped[int] = mapped_column(Integer)


class VariantRow(Base):
    __tablename__ = "product_variants"

    item_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    product_id: Mapped[str] = mapped_column(ForeignKey("products.product_id"), index=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    available: Mapped[bool] = mapped_column(Boolean)
    price_cents: Mapped[int] = mapped_column(BigInteger)
    position: Mapped[int] = mapped_column(Integer)


async def add_products(session: AsyncSession, products: Iterable[tuple[int, Product]]) -> None:
    """Stores each product at its position in the catalog, with its variants. (Rows are
    flushed products first: without relationship() the flush order is not derived from
    the foreign key.)"""
    variants: list[VariantRow] = []
    for index, product in products:
        session.add(ProductRow(product_id=product.product_id, name=product.name, position=index))
        variants.extend(
            VariantRow(
                item_id=variant.item_id,
                product_id=product.product_id,
                options=dict(variant.options),
                available=variant.available,
                price_cents=cents(variant.price),
                position=position,
            )
            for position, variant in enumerate(product.variants)
        )
    await session.flush()
    session.add_all(variants)


def _variant_from_row(row: VariantRow) -> Variant:
    return Variant(
        item_id=row.item_id,
        product_id=row.product_id,
        options=dict(row.options),
        available=row.available,
        price=amount_from_cents(row.price_cents),
    )


async def read_variants(session: AsyncSession, item_ids: Iterable[str]) -> dict[str, Variant]:
    """The variants among `item_ids` that exist, by item id."""
    wanted = set(item_ids)
    if not wanted:
        return {}
    rows = await session.scalars(select(VariantRow).where(VariantRow.item_id.in_(wanted)))
    return {row.item_id: _variant_from_row(row) for row in rows}


async def read_products(session: AsyncSession, product_ids: Iterable[str] | None) -> list[Product]:
    statement = select(ProductRow).order_by(ProductRow.position, ProductRow.product_id)
    variants = select(VariantRow).order_by(VariantRow.position, VariantRow.item_id)
    if product_ids is not None:
        wanted = set(product_ids)
        statement = statement.where(ProductRow.product_id.in_(wanted))
        variants = variants.where(VariantRow.product_id.in_(wanted))
    by_product: dict[str, list[Variant]] = {}
    for row in await session.scalars(variants):
        by_product.setdefault(row.product_id, []).append(_variant_from_row(row))
    return [
        Product(
            product_id=row.product_id,
            name=row.name,
            variants=tuple(by_product.get(row.product_id, ())),
        )
        for row in await session.scalars(statement)
    ]


class CatalogStore(StoreCore):
    """The `Store` methods that read the catalog. Nothing in a call changes it."""

    async def get_product(self, product_id: str) -> Product | None:
        async with self._session("read a product") as session:
            found = await read_products(session, [product_id])
            return found[0] if found else None

    async def get_variant(self, item_id: str) -> Variant | None:
        """The variant with item id `item_id`, whichever product it is of."""
        async with self._session("read an item") as session:
            return (await read_variants(session, [item_id])).get(item_id)

    async def products(self) -> list[Product]:
        """Every product with its variants, in the catalog's order."""
        async with self._session("read the catalog") as session:
            return await read_products(session, None)
