"""Callers' everyday words read as values: numbers said in words, and the words people
use for the products they ordered and the options they chose."""
