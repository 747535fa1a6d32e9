"""The estimator: memory formulas, the planner, inference sizing and calibration (pure functions).

constants.py holds every calibrated constant with its reason; nothing here reads the vendor tables
to produce an estimate (calibrate.py only compares with them).
"""
