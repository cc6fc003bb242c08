"""How text becomes what search matches: terms, identifiers, token estimates, static vectors, printable names."""
