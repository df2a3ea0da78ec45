chave = b'PGodbqKPY6XNFYVqAVMnqAOnEPfoypVG_J6AtBEu6j0='
