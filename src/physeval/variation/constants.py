"""Physical constants a template may use without writing them in its text (CODATA 2018, SI).

Why: olympiad-style problems often expect the solver to know ``c``, ``h`` or ``e``; a template
names them in its ``constants:`` section (``c: speed_of_light``) and the engine uses these exact
decimal values. Problems that *state* a constant (``take g = 9.8 m/s^2``) use a fixed parameter
instead, so the model and the answer see the same number.
"""

from __future__ import annotations

__all__ = ["BUILTIN_CONSTANTS"]

BUILTIN_CONSTANTS: dict[str, tuple[str, str]] = {
    # name: (exact decimal value, pint unit)
    "speed_of_light": ("299792458", "m/s"),
    "planck_constant": ("6.62607015e-34", "J*s"),
    "reduced_planck_constant": ("1.054571817e-34", "J*s"),
    "elementary_charge": ("1.602176634e-19", "C"),
    "boltzmann_constant": ("1.380649e-23", "J/K"),
    "avogadro_constant": ("6.02214076e23", "1/mol"),
    "gas_constant": ("8.314462618", "J/(mol*K)"),
    "gravitational_constant": ("6.67430e-11", "m**3/(kg*s**2)"),
    "standard_gravity": ("9.80665", "m/s**2"),
    "electron_mass": ("9.1093837015e-31", "kg"),
    "proton_mass": ("1.67262192369e-27", "kg"),
    "neutron_mass": ("1.67492749804e-27", "kg"),
    "atomic_mass_unit": ("1.66053906660e-27", "kg"),
    "vacuum_permittivity": ("8.8541878128e-12", "F/m"),
    "vacuum_permeability": ("1.25663706212e-6", "N/A**2"),
    "coulomb_constant": ("8.9875517923e9", "N*m**2/C**2"),
    "stefan_boltzmann_constant": ("5.670374419e-8", "W/(m**2*K**4)"),
    "wien_displacement_constant": ("2.897771955e-3", "m*K"),
    "rydberg_constant": ("10973731.568160", "1/m"),
    "bohr_radius": ("5.29177210903e-11", "m"),
    "electron_volt": ("1.602176634e-19", "J"),
}
