"""The readable models, each written as the equations of its docstring: recurrent cells, the biLM,
attention, Transformer blocks, the pretrained encoder, word2vec and the character-level LM."""
