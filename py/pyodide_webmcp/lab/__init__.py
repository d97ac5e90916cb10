"""What the lab has besides notebooks: kernels, the outputs of code snippets, commands' arguments, text files.
"""
