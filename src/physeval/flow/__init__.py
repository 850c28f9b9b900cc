"""A run in one direction: plan -> execute -> record -> summarise.

Each step is one module and hands plain data to the next; none calls back up.
"""
